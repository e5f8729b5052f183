package dev.ratelimit.benchmarks.inprocess;

import dev.ratelimit.benchmarks.support.Ours;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import java.util.Map;
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
 * One hot partition of a sliced limit, on one thread: what the deciding filter runs per request (a ledger, then the
 * engine's decision recorded in it) when the request is decided at home from a slice (docs/stores.md, "Exact or
 * sliced"), beside the same with the in-process store. The target: {@code ratelimit_slicedAtHome} at most 1.2x
 * {@code ratelimit_inProcess}. The shared store is a stand-in in this JVM ({@link MapStore}): a slice's store call
 * (one per lease, or per slice-max-share of the limit) is in the figure but costs no round trip;
 * {@code ratelimit_exactSharedStore} is that store asked for every request (exact), for scale.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
@Threads(1)
@State(Scope.Benchmark)
public class SlicedHotKey {

    /** The partition, a field so that the compiler cannot fold it. */
    String key = "sub:alice";
    final RateLimitPolicy policy = Ours.policy("hot");

    RateLimitEngine inProcess;
    BoundLimits inProcessLimits;
    RateLimitEngine sliced;
    BoundLimits slicedLimits;
    RateLimitEngine exact;
    BoundLimits exactLimits;

    @Setup
    public void setUp() {
        inProcess = Ours.engine(RateLimitMetrics.NONE);
        inProcessLimits = Ours.bind(inProcess, "SlicedHotKey", policy);
        sliced = RateLimitEngine.builder(RateLimitSettings.of(Map.of("ratelimit.store.slices", "true")),
                new MapStore(true)).build();
        slicedLimits = Ours.bind(sliced, "SlicedHotKey", policy);
        exact = RateLimitEngine.builder(RateLimitSettings.of(Map.of()), new MapStore(false)).build();
        exactLimits = Ours.bind(exact, "SlicedHotKey", policy);
        for (int i = 0; i < 100; i++) { // the partition is busy: its slices are taken
            Checks.allowed(Ours.decideNow(sliced, sliced.ledger(key), slicedLimits));
        }
        Checks.allowed(Ours.decideNow(inProcess, inProcess.ledger(key), inProcessLimits));
        Checks.allowed(Ours.decideNow(exact, exact.ledger(key), exactLimits));
        System.gc();
    }

    /** After the measurement the limits still allow: every figure above was the allowed path. */
    @TearDown
    public void stillAllowed() {
        Checks.allowed(Ours.decideNow(sliced, sliced.ledger(key), slicedLimits));
        Checks.allowed(Ours.decideNow(inProcess, inProcess.ledger(key), inProcessLimits));
        sliced.close();
    }

    /** The in-process store: the reference. */
    @Benchmark
    public RateLimitDecision ratelimit_inProcess(Blackhole bh) {
        RequestLedger ledger = inProcess.ledger(key);
        bh.consume(ledger);
        return Ours.decideNow(inProcess, ledger, inProcessLimits);
    }

    /** A shared store's sliced partition: decided at home, but for one store call per slice. */
    @Benchmark
    public RateLimitDecision ratelimit_slicedAtHome(Blackhole bh) {
        RequestLedger ledger = sliced.ledger(key);
        bh.consume(ledger);
        return Ours.decideNow(sliced, ledger, slicedLimits);
    }

    /** The same shared store, exact: asked for every request (no network here: its guard and arithmetic only). */
    @Benchmark
    public RateLimitDecision ratelimit_exactSharedStore(Blackhole bh) {
        RequestLedger ledger = exact.ledger(key);
        bh.consume(ledger);
        return Ours.decideNow(exact, ledger, exactLimits);
    }
}
