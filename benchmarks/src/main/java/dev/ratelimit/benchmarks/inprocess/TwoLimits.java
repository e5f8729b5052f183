package dev.ratelimit.benchmarks.inprocess;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitScope;
import dev.ratelimit.benchmarks.peers.Peers;
import dev.ratelimit.store.InProcessRateLimitStore;
import io.github.bucket4j.local.LocalBucket;
import io.github.bucket4j.local.SynchronizationStrategy;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import io.smallrye.faulttolerance.api.Guard;
import java.util.List;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Two limits per request (say {@code burst} and {@code hourly}), one hot key, one thread, allowed path.
 * Each implementation applies them its own way: ours decides both atomically (all or nothing); a
 * Bucket4j bucket with two bandwidths is atomic too; Resilience4j and SmallRye have one limiter per
 * limit, taken one after the other (not atomic: a refusal by the second has spent from the first).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@Threads(1)
@State(Scope.Benchmark)
public class TwoLimits {

    String key = "sub:alice";
    final List<RateLimitPolicy> policies = List.of(
            new RateLimitPolicy("burst", Peers.PERMITS, (int) Peers.WINDOW.toSeconds(), RateLimitScope.TRANSPORT),
            new RateLimitPolicy("hourly", Peers.PERMITS, (int) Peers.WINDOW.toSeconds() + 1, RateLimitScope.TRANSPORT));

    InProcessRateLimitStore store;
    final ConcurrentHashMap<String, LocalBucket> bucket4jSynchronized = new ConcurrentHashMap<>();
    final ConcurrentHashMap<String, LocalBucket> bucket4jLockFree = new ConcurrentHashMap<>();
    final ConcurrentHashMap<String, AtomicRateLimiter[]> resilience4j = new ConcurrentHashMap<>();
    final ConcurrentHashMap<String, Guard[]> smallrye = new ConcurrentHashMap<>();

    @Setup
    public void setUp() {
        store = new InProcessRateLimitStore();
        bucket4jSynchronized.put(key, Peers.bucket4j(SynchronizationStrategy.SYNCHRONIZED, 2));
        bucket4jLockFree.put(key, Peers.bucket4j(SynchronizationStrategy.LOCK_FREE, 2));
        resilience4j.put(key, new AtomicRateLimiter[] {Peers.resilience4jAtomic("burst"), Peers.resilience4jAtomic("hourly")});
        smallrye.put(key, new Guard[] {Peers.smallryeRateLimit(), Peers.smallryeRateLimit()});
    }

    /** Ours: both limits in one atomic decision, the decision value allocated. */
    @Benchmark
    public RateLimitDecision ratelimit_decide() {
        return store.decide(key, policies);
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
        AtomicRateLimiter[] limiters = resilience4j.get(key);
        return limiters[0].acquirePermission() && limiters[1].acquirePermission();
    }

    @Benchmark
    public Boolean smallrye_guardRateLimit() {
        Guard[] guards = smallrye.get(key);
        return guards[0].get(() -> guards[1].get(Peers.GUARDED, Boolean.class), Boolean.class);
    }
}
