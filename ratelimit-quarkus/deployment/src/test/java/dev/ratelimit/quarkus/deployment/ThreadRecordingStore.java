package dev.ratelimit.quarkus.deployment;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import io.vertx.core.Context;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.interceptor.Interceptor;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/** The in-process store, recording per partition whether its last decision was asked on an event loop (test only). */
@Alternative
@Priority(Interceptor.Priority.APPLICATION)
@ApplicationScoped
public class ThreadRecordingStore implements RateLimitStore {

    private static final Map<String, Boolean> ON_EVENT_LOOP = new ConcurrentHashMap<>();

    private final InProcessRateLimitStore delegate = new InProcessRateLimitStore(10_000, System::nanoTime);

    /** Whether the last decision of {@code partition} was asked on an event-loop thread; null: none was asked. */
    static Boolean askedOnEventLoop(String partition) {
        return ON_EVENT_LOOP.get(partition);
    }

    @Override
    public Object bind(CountKey key) {
        return delegate.bind(key);
    }

    @Override
    public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
        ON_EVENT_LOOP.put(partition, Context.isOnEventLoopThread());
        return delegate.acquire(partition, request, multiple);
    }

    @Override
    public CompletionStage<Void> release(RateLimitDecision decision) {
        return delegate.release(decision);
    }
}
