package dev.ratelimit.redis;

import dev.ratelimit.redis.internal.UnexpectedReply;
import dev.ratelimit.redis.transport.ArgumentSink;
import dev.ratelimit.redis.transport.RedisScript;
import dev.ratelimit.redis.transport.ScriptCall;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

/**
 * One call of the counts script ({@code counts.lua}, whose header comment is the reference for every argument and
 * reply), and the stage of what its reply means: it writes its own arguments, and completes itself when the transport
 * hands it the reply. The header is the same for every call: the mode, the manual clock's reading (empty: Redis'
 * clock), the expiry padding, the channel of announcements (empty: none); then what the mode needs.
 *
 * <p>Its fields are set before it is sent and never change, so it can be written again (a resend as {@code EVAL}).
 */
abstract class CountsScriptCall<T> extends CompletableFuture<T> implements ScriptCall {

    static final byte[] ACQUIRE = {'a'};
    /** Decide only: the script's acquire, spending nothing (a part of a split request that cannot go). */
    static final byte[] DECIDE = {'d'};
    static final byte[] RELEASE = {'r'};
    static final byte[] INSPECT = {'i'};
    static final byte[] RESTART = {'x'};
    static final byte[] EMPTY = {};
    private static final int HEADER = 4;

    final RedisRateLimitStore store;
    private final byte[] mode;
    private final long now;
    private final byte[] channel;
    private final long[] reply;

    /** @param replySize the most integers the reply holds */
    CountsScriptCall(RedisRateLimitStore store, byte[] mode, int replySize) {
        this.store = store;
        this.mode = mode;
        this.now = store.now();
        this.channel = store.channel();
        this.reply = new long[replySize];
    }

    /** What the reply means; throws when it is not what the mode answers. */
    abstract T decode(long[] reply, int count);

    /** The arguments after the header. */
    abstract int body();

    /** Writes argument {@code j} after the header. */
    abstract void writeBody(int j, ArgumentSink sink);

    @Override
    public final RedisScript script() {
        return RedisScript.COUNTS;
    }

    @Override
    public final int arguments() {
        return HEADER + body();
    }

    @Override
    public final void writeArgument(int i, ArgumentSink sink) {
        switch (i) {
            case 0 -> sink.bytes(mode);
            case 1 -> {
                if (now == RedisRateLimitStore.SERVER_CLOCK) {
                    sink.bytes(EMPTY);
                } else {
                    sink.number(now);
                }
            }
            case 2 -> sink.number(store.padding());
            case 3 -> sink.bytes(channel);
            default -> writeBody(i - HEADER, sink);
        }
    }

    @Override
    public final long[] reply() {
        return reply;
    }

    @Override
    public final void replied(int count) {
        T meaning;
        try {
            meaning = decode(reply, count);
        } catch (RuntimeException e) {
            completeExceptionally(e);
            return;
        }
        complete(meaning);
    }

    @Override
    public final void failed(Throwable failure) {
        completeExceptionally(failure);
    }

    /** The failure of a reply that is not what the script answers. */
    final UnexpectedReply unexpected(long[] reply, int count) {
        return new UnexpectedReply("ratelimit: unexpected reply from " + RedisScript.COUNTS.name() + ": "
                + (count < 0 ? "not an array of integers" : Arrays.toString(Arrays.copyOf(reply, count))));
    }
}
