package dev.ratelimit.redis.internal;

import dev.ratelimit.redis.transport.RedisTransport;
import dev.ratelimit.redis.transport.ScriptCall;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.function.Consumer;

/**
 * Two clients, each for the callers it suits: a call made on a thread that may block goes through Jedis, written
 * and read by that thread ({@link JedisTransport}); a call made on a thread that must not block (an event loop:
 * Netty's, which Lettuce's and Vert.x's threads are; a fork-join pool, where asynchronous stages go on) goes through
 * Lettuce, on its connection that pipelines ({@link LettuceTransport}). With {@code alwaysBlocking}, every call goes
 * through Jedis. Announcements, and the key secret's fingerprint, go through Lettuce.
 *
 * <p>Which thread a call is made on is the one thing looked at ({@code instanceof}, no lookup); thread-safe as its two
 * transports are. Not API.
 */
public final class ThreadRoutedTransport implements RedisTransport {

    private final JedisTransport blocking;
    private final LettuceTransport lettuce;
    private final boolean alwaysBlocking;

    public ThreadRoutedTransport(JedisTransport blocking, LettuceTransport lettuce, boolean alwaysBlocking) {
        this.blocking = blocking;
        this.lettuce = lettuce;
        this.alwaysBlocking = alwaysBlocking;
    }

    /** True when a call made on {@code thread} may wait for Redis there. */
    public static boolean mayBlock(Thread thread) {
        return !(thread instanceof FastThreadLocalThread) && !(thread instanceof ForkJoinWorkerThread);
    }

    @Override
    public void send(ScriptCall call) {
        if (alwaysBlocking || mayBlock(Thread.currentThread())) {
            blocking.send(call);
        } else {
            lettuce.send(call);
        }
    }

    /** Once both are connected. */
    @Override
    public CompletionStage<Void> connected() {
        return blocking.connected().thenCombine(lettuce.connected(), (a, b) -> null);
    }

    @Override
    public boolean subscribe(String channel, Consumer<String> message, Runnable subscribed) {
        return lettuce.subscribe(channel, message, subscribed);
    }

    @Override
    public CompletionStage<String> setIfAbsent(String key, String value) {
        return lettuce.setIfAbsent(key, value);
    }

    @Override
    public boolean unreachable(Throwable failure) {
        return JedisTransport.ours(failure) ? blocking.unreachable(failure) : lettuce.unreachable(failure);
    }

    @Override
    public void close() {
        try {
            blocking.close();
        } finally {
            lettuce.close();
        }
    }

    /** For tests and logs: {@code jedis}, or {@code jedis+lettuce} when calls on event loops take Lettuce. */
    @Override
    public String toString() {
        return alwaysBlocking ? "jedis" : "jedis+lettuce";
    }
}
