package dev.ratelimit.benchmarks.inprocess;

import dev.ratelimit.benchmarks.support.Ours;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.binding.NamedLimit;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The cost of N permits, and of the programmatic API. One hot key, one thread, allowed path, {@code permits}
 * N = 1 and N = 20 through the same paths:
 * <ul>
 *   <li>{@code ratelimit_storeDecide}: {@code InProcessRateLimitStore.decide(partition, request, N)};</li>
 *   <li>{@code ratelimit_spendNow}: what {@code RateLimiter.acquire(name, N)} runs inside a request whose
 *       ledger exists: {@code RateLimitEngine.named(name)} (a map lookup of the limit made on first use) and
 *       {@code spendNow(ledger, limit, N, false)}. The request's ledger is made per operation (a request
 *       makes one) and is measured alone by {@code ratelimit_ledger}: the programmatic call's own cost and
 *       allocation are the difference.</li>
 * </ul>
 * Both algorithms that keep a different count: the sliding window and the token bucket. The limits are
 * {@value #PERMITS} permits per hour and the counts are made anew before each iteration, so that 20 permits
 * per operation never exhaust them (a 1 s iteration spends well under a billion).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
@Threads(1)
@State(Scope.Benchmark)
public class Permits {

    /** The largest permit limit there is: 2^31 - 1 would do; a round figure reads better. */
    static final int PERMITS = 2_000_000_000;

    @Param({"1", "20"})
    public int permits;

    String key = "sub:alice";

    InProcessRateLimitStore store;
    RateLimitRequest sliding;
    RateLimitRequest tokenBucket;
    RateLimitEngine engine;

    /** New counts before every iteration: 20 permits an operation must never reach the limit. */
    @Setup(Level.Iteration)
    public void setUp() {
        RateLimitPolicy slidingPolicy = new RateLimitPolicy("items", PERMITS, 3600, RateLimitAlgorithm.SLIDING_WINDOW);
        RateLimitPolicy bucketPolicy = new RateLimitPolicy("credits", PERMITS, 3600, RateLimitAlgorithm.TOKEN_BUCKET);
        store = new InProcessRateLimitStore();
        sliding = Ours.request(store, slidingPolicy);
        tokenBucket = Ours.request(store, bucketPolicy);
        engine = Ours.engine(RateLimitMetrics.NONE);
        // declared by a call site, as @RateLimit(name = "items") would: the programmatic API spends from it by name
        Ours.bind(engine, "Permits.sliding", slidingPolicy);
        Ours.bind(engine, "Permits.tokenBucket", bucketPolicy);
        stillAllowed();
    }

    @TearDown(Level.Iteration)
    public void stillAllowed() {
        Checks.allowed(store.decide(key, sliding, permits));
        Checks.allowed(store.decide(key, tokenBucket, permits));
        Checks.allowed(Ours.spendNow(engine, engine.ledger(key), engine.binder().named("items"), permits, false));
        Checks.allowed(Ours.spendNow(engine, engine.ledger(key), engine.binder().named("credits"), permits, false));
    }

    @Benchmark
    public RateLimitDecision ratelimit_storeDecide_sliding() {
        return store.decide(key, sliding, permits);
    }

    @Benchmark
    public RateLimitDecision ratelimit_storeDecide_tokenBucket() {
        return store.decide(key, tokenBucket, permits);
    }

    @Benchmark
    public RateLimitDecision ratelimit_spendNow_sliding(Blackhole bh) {
        RequestLedger ledger = engine.ledger(key);
        bh.consume(ledger);
        NamedLimit limit = engine.binder().named("items");
        return Ours.spendNow(engine, ledger, limit, permits, false);
    }

    @Benchmark
    public RateLimitDecision ratelimit_spendNow_tokenBucket(Blackhole bh) {
        RequestLedger ledger = engine.ledger(key);
        bh.consume(ledger);
        NamedLimit limit = engine.binder().named("credits");
        return Ours.spendNow(engine, ledger, limit, permits, false);
    }

    /** The request's ledger alone: the baseline of {@code ratelimit_spendNow_*}. */
    @Benchmark
    public RequestLedger ratelimit_ledger() {
        return engine.ledger(key);
    }
}
