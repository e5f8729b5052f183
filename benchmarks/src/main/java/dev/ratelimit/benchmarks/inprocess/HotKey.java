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
import io.smallrye.faulttolerance.api.Guard;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * One hot key, allowed path: every thread takes a permit for the same partition. Each implementation
 * finds the key's limiter the way an application limiting per client would (ours inside the store: the
 * limit's table was bound at deployment, then one {@code ConcurrentHashMap.get(partition)}; the peers in a
 * {@code ConcurrentHashMap<String, limiter>}), then takes one permit. The subclasses fix the thread count.
 *
 * <p>Ours, four ways, from the store up to what the Jakarta REST filter runs:
 * <ul>
 *   <li>{@code ratelimit_storeDecide}: {@code InProcessRateLimitStore.decide(partition, request, 1)}, the
 *       store's synchronous decision, alone;</li>
 *   <li>{@code ratelimit_storeAcquire}: the SPI {@code RateLimitStore.acquire}, the same decision in a
 *       completed stage (what a caller that does not know the store would call);</li>
 *   <li>{@code ratelimit_engineDecideNow}: what the deciding filter does per request with the in-process
 *       store: a new ledger for the partition ({@code RateLimitEngine.ledger}) and
 *       {@code RateLimitEngine.decideNow} on the bound limit (guarded store, record in the ledger, metrics
 *       hooks: here {@code RateLimitMetrics.NONE});</li>
 *   <li>{@code ratelimit_engineLedger}: the ledger alone, so that the decision's share of the figure above
 *       is the difference.</li>
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
@State(Scope.Benchmark)
public abstract class HotKey {

    /** The partition, a field so that the compiler cannot fold it. */
    String key = "sub:alice";
    final RateLimitPolicy policy = Ours.policy("hot");

    InProcessRateLimitStore store;
    RateLimitRequest request;
    RateLimitEngine engine;
    BoundLimits limits;
    final ConcurrentHashMap<String, LocalBucket> bucket4jSynchronized = new ConcurrentHashMap<>();
    final ConcurrentHashMap<String, LocalBucket> bucket4jLockFree = new ConcurrentHashMap<>();
    final ConcurrentHashMap<String, AtomicRateLimiter> resilience4j = new ConcurrentHashMap<>();
    final ConcurrentHashMap<String, Guard> smallrye = new ConcurrentHashMap<>();

    @Setup
    public void setUp() {
        store = new InProcessRateLimitStore();
        request = Ours.request(store, policy);
        engine = Ours.engine(RateLimitMetrics.NONE);
        limits = Ours.bind(engine, "HotKey", policy);
        bucket4jSynchronized.put(key, Peers.bucket4jSynchronized());
        bucket4jLockFree.put(key, Peers.bucket4jLockFree());
        resilience4j.put(key, Peers.resilience4jAtomic(key));
        smallrye.put(key, Peers.smallryeRateLimit());
        // Every implementation's state exists before measuring, made by this thread, and has been
        // through a collection, like a count that has served requests for a while: no implementation's
        // state sits beside the objects that one benchmark thread writes (false sharing would then
        // decide the two-thread figures, fork by fork).
        Checks.allowed(store.decide(key, request, 1));
        Checks.allowed(Ours.decideNow(engine, engine.ledger(key), limits));
        System.gc();
    }

    /** After the measurement the limits still allow: every figure above was the allowed path. */
    @TearDown
    public void stillAllowed() {
        Checks.allowed(store.decide(key, request, 1));
        Checks.allowed(Ours.decideNow(engine, engine.ledger(key), limits));
    }

    /** Ours: the store's synchronous decision of one limit. */
    @Benchmark
    public RateLimitDecision ratelimit_storeDecide() {
        return store.decide(key, request, 1);
    }

    /** Ours: the SPI, the same decision in a completed stage. */
    @Benchmark
    public CompletionStage<RateLimitDecision> ratelimit_storeAcquire() {
        return store.acquire(key, request, 1);
    }

    /** Ours: what the deciding filter runs per request: a ledger, then the engine's decision recorded in it. */
    @Benchmark
    public RateLimitDecision ratelimit_engineDecideNow(Blackhole bh) {
        RequestLedger ledger = engine.ledger(key);
        bh.consume(ledger); // a request keeps its ledger (a request property): it must not be scalar-replaced
        return Ours.decideNow(engine, ledger, limits);
    }

    /** Ours: the ledger alone (the baseline of {@code ratelimit_engineDecideNow}). */
    @Benchmark
    public RequestLedger ratelimit_engineLedger() {
        return engine.ledger(key);
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
