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
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * {@value #KEYS} keys, each operation a key drawn uniformly at random (a precomputed sequence, the same
 * for every implementation), allowed path. The working set is far larger than the CPU's first-level
 * caches: this is the cost of a permit for a client that is not the last one served. Ours keeps all
 * {@value #KEYS} counts (its default {@code max-tracked-partitions}); the peers keep one limiter per
 * key in a {@code ConcurrentHashMap}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
@Threads(1)
@State(Scope.Benchmark)
public class UniformKeys {

    static final int KEYS = 10_000;
    private static final int SEQUENCE = 1 << 16;

    final String[] keys = new String[KEYS];
    final RateLimitPolicy policy = Ours.policy("perClient");

    InProcessRateLimitStore store;
    RateLimitRequest request;
    RateLimitEngine engine;
    BoundLimits limits;
    final ConcurrentHashMap<String, LocalBucket> bucket4jSynchronized = new ConcurrentHashMap<>();
    final ConcurrentHashMap<String, AtomicRateLimiter> resilience4j = new ConcurrentHashMap<>();
    final AtomicInteger seeds = new AtomicInteger();

    /** Each thread walks its own random sequence of keys. */
    @State(Scope.Thread)
    public static class PerThread {
        final int[] sequence = new int[SEQUENCE];
        int next;

        @Setup
        public void setUp(UniformKeys benchmark) {
            SplittableRandom random = new SplittableRandom(42 + benchmark.seeds.getAndIncrement());
            for (int i = 0; i < SEQUENCE; i++) {
                sequence[i] = random.nextInt(KEYS);
            }
        }

        String key(String[] keys) {
            return keys[sequence[next++ & (SEQUENCE - 1)]];
        }
    }

    @Setup
    public void setUp() {
        store = new InProcessRateLimitStore(KEYS, System::nanoTime);
        request = Ours.request(store, policy);
        engine = Ours.engine(new InProcessRateLimitStore(KEYS, System::nanoTime), RateLimitMetrics.NONE);
        limits = Ours.bind(engine, "UniformKeys", policy);
        for (int i = 0; i < KEYS; i++) {
            // distinct String instances, as a partitioner builds them per request
            keys[i] = new String("sub:client-" + i);
            Checks.allowed(store.decide(keys[i], request, 1)); // counted: the store has room for every key
            Checks.allowed(Ours.decideNow(engine, engine.ledger(keys[i]), limits));
            bucket4jSynchronized.put(keys[i], Peers.bucket4jSynchronized());
            resilience4j.put(keys[i], Peers.resilience4jAtomic(keys[i]));
        }
    }

    @Benchmark
    public RateLimitDecision ratelimit_storeDecide(PerThread thread) {
        return store.decide(thread.key(keys), request, 1);
    }

    @Benchmark
    public RateLimitDecision ratelimit_engineDecideNow(PerThread thread, Blackhole bh) {
        RequestLedger ledger = engine.ledger(thread.key(keys));
        bh.consume(ledger);
        return Ours.decideNow(engine, ledger, limits);
    }

    @Benchmark
    public boolean bucket4j_synchronized(PerThread thread) {
        return bucket4jSynchronized.get(thread.key(keys)).tryConsume(1);
    }

    @Benchmark
    public boolean resilience4j_atomicRateLimiter(PerThread thread) {
        return resilience4j.get(thread.key(keys)).acquirePermission();
    }
}
