package dev.ratelimit.benchmarks.inprocess;

import dev.ratelimit.benchmarks.peers.Peers;
import dev.ratelimit.benchmarks.support.Ours;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import io.github.bucket4j.local.LocalBucket;
import io.github.bucket4j.local.SynchronizationStrategy;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Two limits on one request (say {@code burst} and {@code hourly}), one hot key, one thread, allowed path.
 * Ours decides both atomically (all or nothing: both counts locked in a fixed order); a Bucket4j bucket
 * with two bandwidths is atomic too (one lock, one state); Resilience4j has one limiter per limit, taken
 * one after the other (not atomic: a refusal by the second has spent from the first).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
@Threads(1)
@State(Scope.Benchmark)
public class TwoLimits {

    String key = "sub:alice";
    final RateLimitPolicy burst = Ours.policy("burst");
    final RateLimitPolicy hourly = Ours.policy("hourly");

    InProcessRateLimitStore store;
    RateLimitRequest request;
    RateLimitEngine engine;
    BoundLimits limits;
    final ConcurrentHashMap<String, LocalBucket> bucket4jSynchronized = new ConcurrentHashMap<>();
    final ConcurrentHashMap<String, LocalBucket> bucket4jLockFree = new ConcurrentHashMap<>();
    final ConcurrentHashMap<String, AtomicRateLimiter[]> resilience4j = new ConcurrentHashMap<>();

    @Setup
    public void setUp() {
        store = new InProcessRateLimitStore();
        request = Ours.request(store, burst, hourly);
        engine = Ours.engine(RateLimitMetrics.NONE);
        limits = Ours.bind(engine, "TwoLimits", burst, hourly);
        bucket4jSynchronized.put(key, Peers.bucket4j(SynchronizationStrategy.SYNCHRONIZED, 2));
        bucket4jLockFree.put(key, Peers.bucket4j(SynchronizationStrategy.LOCK_FREE, 2));
        resilience4j.put(key, new AtomicRateLimiter[] {Peers.resilience4jAtomic("burst"), Peers.resilience4jAtomic("hourly")});
        Checks.allowed(store.decide(key, request, 1));
        Checks.allowed(Ours.decideNow(engine, engine.ledger(key), limits));
        System.gc();
    }

    @TearDown
    public void stillAllowed() {
        Checks.allowed(store.decide(key, request, 1));
        Checks.allowed(Ours.decideNow(engine, engine.ledger(key), limits));
    }

    /** Ours: both limits in one atomic decision of the store. */
    @Benchmark
    public RateLimitDecision ratelimit_storeDecide() {
        return store.decide(key, request, 1);
    }

    /** Ours: what the deciding filter runs for a method with two limits. */
    @Benchmark
    public RateLimitDecision ratelimit_engineDecideNow(Blackhole bh) {
        RequestLedger ledger = engine.ledger(key);
        bh.consume(ledger);
        return Ours.decideNow(engine, ledger, limits);
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
}
