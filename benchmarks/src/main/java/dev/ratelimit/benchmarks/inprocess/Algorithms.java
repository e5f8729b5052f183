package dev.ratelimit.benchmarks.inprocess;

import dev.ratelimit.benchmarks.peers.Peers;
import dev.ratelimit.benchmarks.support.Ours;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import io.github.bucket4j.local.LocalBucket;
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
 * Each algorithm of ours on one hot key, one thread, allowed path, beside a Bucket4j bucket guarded by
 * {@code synchronized}: the sliding window (the default), the strict window (same count, permits return
 * one step later) and the token bucket (GCRA, one timestamp). Each through the store's decision and
 * through the engine's request path (a ledger per operation, as the filter does).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
@Threads(1)
@State(Scope.Benchmark)
public class Algorithms {

    String key = "sub:alice";

    InProcessRateLimitStore store;
    RateLimitRequest sliding;
    RateLimitRequest strict;
    RateLimitRequest tokenBucket;
    RateLimitEngine engine;
    BoundLimits slidingLimits;
    BoundLimits strictLimits;
    BoundLimits tokenBucketLimits;
    final ConcurrentHashMap<String, LocalBucket> bucket4jSynchronized = new ConcurrentHashMap<>();

    @Setup
    public void setUp() {
        store = new InProcessRateLimitStore();
        RateLimitPolicy slidingPolicy = Ours.policy("sliding", RateLimitAlgorithm.SLIDING_WINDOW);
        RateLimitPolicy strictPolicy = Ours.policy("strict", RateLimitAlgorithm.STRICT_WINDOW);
        RateLimitPolicy bucketPolicy = Ours.policy("tokenBucket", RateLimitAlgorithm.TOKEN_BUCKET);
        sliding = Ours.request(store, slidingPolicy);
        strict = Ours.request(store, strictPolicy);
        tokenBucket = Ours.request(store, bucketPolicy);
        engine = Ours.engine(RateLimitMetrics.NONE);
        slidingLimits = Ours.bind(engine, "Algorithms.sliding", slidingPolicy);
        strictLimits = Ours.bind(engine, "Algorithms.strict", strictPolicy);
        tokenBucketLimits = Ours.bind(engine, "Algorithms.tokenBucket", bucketPolicy);
        bucket4jSynchronized.put(key, Peers.bucket4jSynchronized());
        stillAllowed();
        System.gc();
    }

    @TearDown
    public void stillAllowed() {
        for (RateLimitRequest request : new RateLimitRequest[] {sliding, strict, tokenBucket}) {
            Checks.allowed(store.decide(key, request, 1));
        }
        for (BoundLimits limits : new BoundLimits[] {slidingLimits, strictLimits, tokenBucketLimits}) {
            Checks.allowed(Ours.decideNow(engine, engine.ledger(key), limits));
        }
    }

    @Benchmark
    public RateLimitDecision ratelimit_storeDecide_sliding() {
        return store.decide(key, sliding, 1);
    }

    @Benchmark
    public RateLimitDecision ratelimit_storeDecide_strict() {
        return store.decide(key, strict, 1);
    }

    @Benchmark
    public RateLimitDecision ratelimit_storeDecide_tokenBucket() {
        return store.decide(key, tokenBucket, 1);
    }

    @Benchmark
    public RateLimitDecision ratelimit_engineDecideNow_sliding(Blackhole bh) {
        return decideNow(slidingLimits, bh);
    }

    @Benchmark
    public RateLimitDecision ratelimit_engineDecideNow_strict(Blackhole bh) {
        return decideNow(strictLimits, bh);
    }

    @Benchmark
    public RateLimitDecision ratelimit_engineDecideNow_tokenBucket(Blackhole bh) {
        return decideNow(tokenBucketLimits, bh);
    }

    @Benchmark
    public boolean bucket4j_synchronized() {
        return bucket4jSynchronized.get(key).tryConsume(1);
    }

    private RateLimitDecision decideNow(BoundLimits limits, Blackhole bh) {
        RequestLedger ledger = engine.ledger(key);
        bh.consume(ledger);
        return Ours.decideNow(engine, ledger, limits);
    }
}
