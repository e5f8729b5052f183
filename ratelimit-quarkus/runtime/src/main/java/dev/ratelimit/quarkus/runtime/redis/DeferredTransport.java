package dev.ratelimit.quarkus.runtime.redis;

import dev.ratelimit.redis.transport.RedisTransport;
import dev.ratelimit.redis.transport.ScriptCall;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * A transport that exists before Quarkus' Vert.x does: the store is made when the engine binds the limits, during
 * Quarkus' run-time initialisation, and Vert.x (with the Redis client on it) only once that is over. Until
 * {@link #start} hands it the real transport it keeps what it is asked (calls, the subscription) and then passes
 * everything on, in order; after that it only forwards.
 *
 * <p>Concurrency: everything before the start is guarded by {@code this}; {@code started} is written under it and read
 * without it once set (a call that sees it null takes the lock and looks again).
 */
final class DeferredTransport implements RedisTransport {

    private final CompletableFuture<Void> connected = new CompletableFuture<>();
    private volatile RedisTransport started;
    private List<ScriptCall> calls = new ArrayList<>();
    private Runnable subscription;
    private boolean closed;

    /** Hands over to {@code transport}: what waited goes to it now. */
    void start(RedisTransport transport) {
        List<ScriptCall> waiting;
        Runnable subscribe;
        synchronized (this) {
            if (closed) {
                transport.close();
                return;
            }
            started = transport;
            waiting = calls;
            calls = null;
            subscribe = subscription;
            subscription = null;
        }
        if (subscribe != null) {
            subscribe.run();
        }
        waiting.forEach(transport::send);
        transport.connected().whenComplete((done, failure) -> {
            if (failure == null) {
                connected.complete(null);
            } else {
                connected.completeExceptionally(failure);
            }
        });
    }

    @Override
    public void send(ScriptCall call) {
        RedisTransport transport = started;
        if (transport == null) {
            synchronized (this) {
                transport = started;
                if (transport == null) {
                    if (closed) {
                        call.failed(new IllegalStateException("closed"));
                    } else {
                        calls.add(call);
                    }
                    return;
                }
            }
        }
        transport.send(call);
    }

    @Override
    public CompletionStage<Void> connected() {
        return connected;
    }

    @Override
    public boolean subscribe(String channel, Consumer<String> message, Runnable subscribed) {
        synchronized (this) {
            if (started == null) {
                subscription = () -> started.subscribe(channel, message, subscribed);
                return true;
            }
        }
        return started.subscribe(channel, message, subscribed);
    }

    /**
     * Before the start, not yet: the engine binds the limits (and asks) before Vert.x exists, so the producer asks
     * again at start-up ({@code QuarkusRedisStoreProducer.start}); after it, the started transport's answer.
     */
    @Override
    public CompletionStage<String> setIfAbsent(String key, String value) {
        RedisTransport transport = started;
        if (transport == null) {
            return CompletableFuture.failedFuture(new UnsupportedOperationException(
                    "compared once Quarkus has started the Redis client"));
        }
        return transport.setIfAbsent(key, value);
    }

    @Override
    public boolean unreachable(Throwable failure) {
        RedisTransport transport = started;
        return transport == null || transport.unreachable(failure);
    }

    @Override
    public void close() {
        RedisTransport transport;
        List<ScriptCall> waiting;
        synchronized (this) {
            closed = true;
            transport = started;
            waiting = calls;
            calls = null;
        }
        if (transport != null) {
            transport.close();
        }
        if (waiting != null) {
            waiting.forEach(call -> call.failed(new IllegalStateException("closed")));
        }
    }
}
