package dev.ratelimit.benchmarks.memory;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitScope;
import dev.ratelimit.benchmarks.peers.Peers;
import dev.ratelimit.internal.engine.SlidingWindowCount;
import dev.ratelimit.store.InProcessRateLimitStore;
import io.github.bucket4j.local.LocalBucket;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import io.smallrye.faulttolerance.api.Guard;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jol.info.GraphLayout;

/**
 * Retained bytes per tracked limiter, measured with JOL (the object graph reachable from
 * {@code instances} limiters (10 000), each having spent a permit, divided by their number: what they
 * share is counted once, so it is amortized to almost nothing). The figure is the secondary result
 * {@code ·bytesPerLimiter}; the score is only the time the measurement took.
 *
 * <ul>
 *   <li>{@code *_limiter}: the limiter object alone (our count; a Bucket4j bucket as its builder makes it;
 *       a Resilience4j limiter; a SmallRye guard);</li>
 *   <li>{@code *_perKeyInMap}: a limiter per client key as an application keeps it, in a
 *       {@code ConcurrentHashMap<String, limiter>} with its key (for ours: the store's own tables after
 *       as many partitions).</li>
 * </ul>
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
@Fork(value = 1, jvmArgsAppend = "-Djol.magicFieldOffset=true")
@Threads(1)
@State(Scope.Benchmark)
public class Footprint {

    static {
        // JOL reads field offsets of hidden classes (SmallRye's lambdas) only this way
        System.setProperty("jol.magicFieldOffset", "true");
    }

    /** Limiters measured together; the smoke run uses fewer. */
    @Param("10000")
    public int instances;

    static final RateLimitPolicy POLICY =
            new RateLimitPolicy("perClient", Peers.PERMITS, (int) Peers.WINDOW.toSeconds(), RateLimitScope.TRANSPORT);

    /** The measured figure, reported beside the score. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Retained {
        /** Bytes retained per limiter, amortized over the instances. */
        public double bytesPerLimiter;
    }

    @Benchmark
    public void ratelimit_limiter(Retained out) {
        // the count the store keeps per (name, partition), alone: without its table entry and key
        out.bytesPerLimiter = perInstance(limiters(i -> spent(new SlidingWindowCount(System.nanoTime(), POLICY))));
    }

    @Benchmark
    public void ratelimit_perKeyInMap(Retained out) {
        InProcessRateLimitStore store = new InProcessRateLimitStore(instances, System::nanoTime);
        fill(store, instances);
        out.bytesPerLimiter = (double) GraphLayout.parseInstance(store).totalSize() / instances;
    }

    @Benchmark
    public void bucket4j_synchronized_limiter(Retained out) {
        out.bytesPerLimiter = perInstance(limiters(i -> spent(Peers.bucket4jSynchronized())));
    }

    @Benchmark
    public void bucket4j_synchronized_perKeyInMap(Retained out) {
        out.bytesPerLimiter = perKeyInMap(i -> spent(Peers.bucket4jSynchronized()));
    }

    @Benchmark
    public void bucket4j_lockFree_limiter(Retained out) {
        out.bytesPerLimiter = perInstance(limiters(i -> spent(Peers.bucket4jLockFree())));
    }

    @Benchmark
    public void bucket4j_lockFree_perKeyInMap(Retained out) {
        out.bytesPerLimiter = perKeyInMap(i -> spent(Peers.bucket4jLockFree()));
    }

    @Benchmark
    public void resilience4j_atomicRateLimiter_limiter(Retained out) {
        out.bytesPerLimiter = perInstance(limiters(Footprint::resilience4j));
    }

    @Benchmark
    public void resilience4j_atomicRateLimiter_perKeyInMap(Retained out) {
        out.bytesPerLimiter = perKeyInMap(Footprint::resilience4j);
    }

    @Benchmark
    public void smallrye_guardRateLimit_limiter(Retained out) {
        out.bytesPerLimiter = perInstance(limiters(i -> smallrye()));
    }

    static String key(int i) {
        return "sub:client-" + i;
    }

    static void fill(InProcessRateLimitStore store, int partitions) {
        RateLimitDecision.Acquisition acquisition = new RateLimitDecision.Acquisition();
        for (int i = 0; i < partitions; i++) {
            store.tryAcquire(key(i), POLICY, acquisition);
        }
    }

    private static SlidingWindowCount spent(SlidingWindowCount count) {
        count.lock();
        try {
            count.prepare(System.nanoTime(), POLICY);
            count.spend();
        } finally {
            count.unlock();
        }
        return count;
    }

    private static LocalBucket spent(LocalBucket bucket) {
        bucket.tryConsume(1);
        return bucket;
    }

    private static AtomicRateLimiter resilience4j(int i) {
        AtomicRateLimiter limiter = Peers.resilience4jAtomic(key(i));
        limiter.acquirePermission();
        return limiter;
    }

    private static Guard smallrye() {
        Guard guard = Peers.smallryeRateLimit();
        guard.get(Peers.GUARDED, Boolean.class);
        return guard;
    }

    private Object[] limiters(IntFunction<?> factory) {
        Object[] all = new Object[instances];
        for (int i = 0; i < instances; i++) {
            all[i] = factory.apply(i);
        }
        return all;
    }

    private static double perInstance(Object[] instances) {
        long array = GraphLayout.parseInstance((Object) new Object[instances.length]).totalSize();
        return (double) (GraphLayout.parseInstance((Object) instances).totalSize() - array) / instances.length;
    }

    private double perKeyInMap(IntFunction<?> factory) {
        ConcurrentHashMap<String, Object> map = new ConcurrentHashMap<>();
        for (int i = 0; i < instances; i++) {
            map.put(key(i), factory.apply(i));
        }
        return (double) GraphLayout.parseInstance(map).totalSize() / instances;
    }
}
