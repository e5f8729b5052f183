package dev.ratelimit.benchmarks.inprocess;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitScope;
import dev.ratelimit.benchmarks.peers.Peers;
import dev.ratelimit.store.InProcessRateLimitStore;
import io.github.bucket4j.local.LocalBucket;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import io.smallrye.faulttolerance.api.Guard;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One hot key, allowed path: every thread takes a permit for the same partition. Each implementation
 * finds the key's limiter the way an application limiting per client would (ours inside the store, the
 * peers in a {@code ConcurrentHashMap<String, limiter>}), then takes one permit. The subclasses fix the
 * thread count.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public abstract class HotKey {

    /** The partition, a field so that the compiler cannot fold it. */
    String key = "sub:alice";
    RateLimitPolicy policy = new RateLimitPolicy("hot", Peers.PERMITS, (int) Peers.WINDOW.toSeconds(), RateLimitScope.TRANSPORT);
    List<RateLimitPolicy> policies = List.of(policy);

    InProcessRateLimitStore store;
    final ConcurrentHashMap<String, LocalBucket> bucket4jSynchronized = new ConcurrentHashMap<>();
    final ConcurrentHashMap<String, LocalBucket> bucket4jLockFree = new ConcurrentHashMap<>();
    final ConcurrentHashMap<String, AtomicRateLimiter> resilience4j = new ConcurrentHashMap<>();
    final ConcurrentHashMap<String, Guard> smallrye = new ConcurrentHashMap<>();

    /** What each benchmark thread keeps for itself. */
    @State(Scope.Thread)
    public static class PerThread {
        final RateLimitDecision.Acquisition acquisition = new RateLimitDecision.Acquisition();
    }

    @Setup
    public void setUp() {
        store = new InProcessRateLimitStore();
        bucket4jSynchronized.put(key, Peers.bucket4jSynchronized());
        bucket4jLockFree.put(key, Peers.bucket4jLockFree());
        resilience4j.put(key, Peers.resilience4jAtomic(key));
        smallrye.put(key, Peers.smallryeRateLimit());
        // Every implementation's state exists before measuring, made by this thread, and has been
        // through a collection, like a count that has served requests for a while: no implementation's
        // state sits beside the objects that one benchmark thread writes (false sharing would then
        // decide the two-thread figures, fork by fork).
        store.tryAcquire(key, policy, new RateLimitDecision.Acquisition());
        System.gc();
    }

    /**
     * Ours, the allocation-free primitive that the decision path runs: one permit, its outcome
     * (remaining, reset, receipt) written into the thread's reusable {@code Acquisition}.
     */
    @Benchmark
    public boolean ratelimit_tryAcquire(PerThread thread) {
        return store.tryAcquire(key, policy, thread.acquisition);
    }

    /** Ours, the synchronous decision the SPI's stage wraps: allocates the decision value. */
    @Benchmark
    public RateLimitDecision ratelimit_decide() {
        return store.decide(key, policies);
    }

    /** Ours, through the SPI ({@code RateLimitStore.acquire}): the decision in a completed stage. */
    @Benchmark
    public CompletionStage<RateLimitDecision> ratelimit_acquireSpi() {
        return store.acquire(key, policies);
    }

    @Benchmark
    public boolean bucket4j_synchronized() {
        return bucket4jSynchronized.get(key).tryConsume(1);
    }

    @Benchmark
    public boolean bucket4j_lockFree() {
        return bucket4jLockFree.get(key).tryConsume(1);
    }

    @Benchmark
    public boolean resilience4j_atomicRateLimiter() {
        return resilience4j.get(key).acquirePermission();
    }

    @Benchmark
    public Boolean smallrye_guardRateLimit() {
        return smallrye.get(key).get(Peers.GUARDED, Boolean.class);
    }
}
