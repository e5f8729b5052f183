package dev.ratelimit.redis.internal;

import dev.ratelimit.redis.transport.ScriptCall;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.CompleteableCommand;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * One script call as a Lettuce command: {@code EVALSHA} (or {@code EVAL}) written straight into Netty's buffer by the
 * call itself ({@link ByteBufArguments}), its reply read into the call's array of integers ({@link Integers}), and
 * the call completed on the I/O thread, with no future of Lettuce's in between.
 *
 * <p>Completed once ({@code finished}, by compare-and-set: Lettuce's timeout and the reply may race); the transport
 * hears of every completion ({@link LettuceTransport#completed}), which flushes what waits.
 */
final class ScriptCommand extends Command<String, String, Object> implements CompleteableCommand<Object> {

    private static final AtomicIntegerFieldUpdater<ScriptCommand> FINISHED =
            AtomicIntegerFieldUpdater.newUpdater(ScriptCommand.class, "finished");
    private static final String NOSCRIPT = "NOSCRIPT";

    final ScriptCall call;
    private final LettuceTransport transport;
    private final boolean eval;
    private final Integers reply;
    private volatile int finished;
    /** Lettuce's timeout, cancelled on completion; set before the command is written. */
    private BiConsumer<Object, Throwable> onComplete;

    ScriptCommand(LettuceTransport transport, ScriptCall call, boolean eval, CommandArgs<String, String> routing) {
        this(transport, call, eval, routing, new Integers(call.reply()));
    }

    private ScriptCommand(LettuceTransport transport, ScriptCall call, boolean eval, CommandArgs<String, String> routing,
                          Integers reply) {
        super(eval ? CommandType.EVAL : CommandType.EVALSHA, reply, routing);
        this.transport = transport;
        this.call = call;
        this.eval = eval;
        this.reply = reply;
    }

    @Override
    public void encode(ByteBuf buf) {
        ByteBufArguments.writeCall(buf, eval ? CommandType.EVAL.getBytes() : CommandType.EVALSHA.getBytes(),
                eval ? transport.text : transport.sha, call);
    }

    @Override
    public void complete() {
        super.complete();
        if (!FINISHED.compareAndSet(this, 0, 1)) {
            return;
        }
        transport.completed();
        String error = reply.getError();
        if (error == null) {
            call.replied(reply.count());
        } else if (!eval && error.startsWith(NOSCRIPT)) {
            transport.resendAsEval(call); // Redis restarted, or its scripts were flushed
        } else {
            call.failed(new RedisCommandExecutionException(error));
        }
        notifyCompletion(error == null ? null : new RedisCommandExecutionException(error));
    }

    @Override
    public boolean completeExceptionally(Throwable failure) {
        boolean done = super.completeExceptionally(failure);
        if (FINISHED.compareAndSet(this, 0, 1)) {
            transport.completed();
            call.failed(failure);
            notifyCompletion(failure);
        }
        return done;
    }

    @Override
    public void cancel() {
        super.cancel();
        if (FINISHED.compareAndSet(this, 0, 1)) {
            transport.completed();
            CancellationException cancelled = new CancellationException("the connection was reset or closed");
            call.failed(cancelled);
            notifyCompletion(cancelled);
        }
    }

    private void notifyCompletion(Throwable failure) {
        BiConsumer<Object, Throwable> listener = onComplete;
        if (listener != null) {
            listener.accept(null, failure);
        }
    }

    @Override
    public void onComplete(Consumer<? super Object> action) {
        onComplete((value, failure) -> action.accept(value));
    }

    @Override
    public void onComplete(BiConsumer<? super Object, Throwable> action) {
        BiConsumer<Object, Throwable> before = onComplete;
        @SuppressWarnings("unchecked")
        BiConsumer<Object, Throwable> added = (BiConsumer<Object, Throwable>) action;
        onComplete = before == null ? added : before.andThen(added);
        if (finished != 0) {
            added.accept(null, null);
        }
    }

    /**
     * The integers of a reply, into the call's array: one for an integer reply, the elements of an array of them.
     * Anything else (a nested array, a string) makes the count -1, which the call reports as an unexpected reply.
     */
    static final class Integers extends CommandOutput<String, String, Object> {

        private final long[] into;
        private int count;
        private int arrays;
        private boolean unexpected;

        Integers(long[] into) {
            super(StringCodec.UTF8, null);
            this.into = into;
        }

        @Override
        public void set(long value) {
            if (count < into.length) {
                into[count++] = value;
            } else {
                unexpected = true;
            }
        }

        @Override
        public void set(ByteBuffer bytes) {
            unexpected = true;
        }

        @Override
        public void multi(int size) {
            if (++arrays > 1) {
                unexpected = true;
            }
        }

        int count() {
            return unexpected ? -1 : count;
        }
    }
}
