package dev.ratelimit.core.engine;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.CountState;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.core.testing.ManualClock;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a store that several instances share does, in one JVM: in-process counts on the test's clock, answered as a
 * stage (so the engine treats it as remote), every call counted, and announcements as the Redis store makes them: a
 * count that refused a call (of kind {@code ACQUIRE}, that may not wait) is flagged, and a give-back or a restart of
 * a flagged count announces it to every engine that listens and clears the flag. Several engines on one instance are
 * several application instances on one store.
 */
final class SharedFakeStore implements RateLimitStore {

    final InProcessRateLimitStore counts;
    final AtomicInteger acquires = new AtomicInteger();
    final List<CountListener> listeners = new CopyOnWriteArrayList<>();
    /** Answers held back ({@link #hold}): run by the test. */
    final List<Runnable> held = new CopyOnWriteArrayList<>();
    private final Set<String> refusedSinceAnnounced = ConcurrentHashMap.newKeySet();
    volatile boolean announces = true;
    volatile boolean unreachable;
    volatile boolean hold;
    /** Announces nothing (but says it does). */
    volatile boolean silent;

    SharedFakeStore(ManualClock clock) {
        this.counts = new InProcessRateLimitStore(10_000, clock);
    }

    /** What a (re)connected subscription does: every listener hears that anything may have changed. */
    void subscribed() {
        listeners.forEach(CountListener::anyMayHaveGained);
    }

    @Override
    public boolean announceTo(CountListener listener) {
        listeners.add(listener);
        return announces;
    }

    @Override
    public Object bind(CountKey key) {
        return counts.bind(key);
    }

    @Override
    public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
        acquires.incrementAndGet();
        if (unreachable) {
            return CompletableFuture.failedFuture(new IOException("connection refused"));
        }
        if (hold) {
            CompletableFuture<RateLimitDecision> later = new CompletableFuture<>();
            held.add(() -> later.complete(decide(partition, request, multiple, true)));
            return later;
        }
        return CompletableFuture.completedFuture(decide(partition, request, multiple, true));
    }

    /** The store's answer now, as {@link #acquire} gives it; {@code flag}: mark the counts it refuses. */
    RateLimitDecision decide(String partition, RateLimitRequest request, int multiple, boolean flag) {
        RateLimitDecision decision = counts.decide(partition, request, multiple);
        if (flag) {
            for (int i = 0; i < decision.size(); i++) {
                if (decision.refuses(i) && request.kind(i) == Kind.ACQUIRE && request.maxWaitNanos(i) == 0) {
                    refusedSinceAnnounced.add(id(request.key(i), partition));
                }
            }
        }
        return decision;
    }

    @Override
    public CompletionStage<Void> release(RateLimitDecision decision) {
        if (unreachable) {
            return CompletableFuture.failedFuture(new IOException("connection refused"));
        }
        counts.giveBack(decision);
        for (int i = 0; i < decision.size(); i++) {
            if (decision.outcome(i).spent()) {
                announce(decision.request().key(i), decision.partition());
            }
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<CountState> inspect(String partition, RateLimitRequest request) {
        return counts.inspect(partition, request);
    }

    @Override
    public CompletionStage<Void> restart(String partition, RateLimitRequest request) {
        return counts.restart(partition, request).thenRun(() -> announce(request.key(0), partition));
    }

    private void announce(CountKey key, String partition) {
        if (refusedSinceAnnounced.remove(id(key, partition)) && !silent) {
            listeners.forEach(l -> l.gained(key.name(), key.plan(), key.partition(partition)));
        }
    }

    private static String id(CountKey key, String partition) {
        return key + "@" + key.partition(partition);
    }

    @Override
    public String storeName() {
        return "shared";
    }

    @Override
    public String toString() {
        return "shared fake store";
    }
}
