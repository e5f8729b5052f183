package dev.ratelimit.benchmarks.memory;

import dev.ratelimit.benchmarks.peers.Peers;
import dev.ratelimit.benchmarks.support.Ours;
import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import io.github.bucket4j.local.LocalBucket;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import io.smallrye.faulttolerance.api.Guard;
import java.util.Map;
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
import org.openjdk.jol.info.ClassLayout;
import org.openjdk.jol.info.GraphLayout;

/**
 * Retained bytes per tracked limiter, measured with JOL (the object graph reachable from
 * {@code instances} limiters (10 000), each having spent a permit, divided by their number: what they
 * share is counted once, so it is amortized to almost nothing). The figure is the secondary result
 * {@code ·bytesPerLimiter}; the score is only the time the measurement took.
 *
 * <ul>
 *   <li>{@code *_limiter}: the limiter object alone (our count, as the in-process store keeps it for one
 *       partition: {@code WindowCount} for the sliding and strict windows, {@code BucketCount} for the token
 *       bucket, read out of the store's table; a Bucket4j bucket as its builder makes it; a Resilience4j
 *       limiter; a SmallRye guard);</li>
 *   <li>{@code *_perKeyInMap}: a limiter per client key as an application keeps it, in a
 *       {@code ConcurrentHashMap<String, limiter>} with its key (for ours: the store's own tables after
 *       as many partitions);</li>
 *   <li>{@code ratelimit_decision_limiter}: not a limiter: the bytes one allowed decision of one limit
 *       allocates (the {@code RateLimitDecision} and its {@code Outcome}; the request, policy and partition
 *       they point to exist already), the floor of B/op for any path that returns a decision.</li>
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

    static final RateLimitPolicy SLIDING = Ours.policy("perClient", RateLimitAlgorithm.SLIDING_WINDOW);
    static final RateLimitPolicy TOKEN_BUCKET = Ours.policy("perClient", RateLimitAlgorithm.TOKEN_BUCKET);

    /** The measured figure, reported beside the score. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Retained {
        /** Bytes retained per limiter, amortized over the instances. */
        public double bytesPerLimiter;
    }

    @Benchmark
    public void ratelimit_slidingCount_limiter(Retained out) {
        out.bytesPerLimiter = perInstance(counts(SLIDING, instances));
    }

    @Benchmark
    public void ratelimit_tokenBucketCount_limiter(Retained out) {
        out.bytesPerLimiter = perInstance(counts(TOKEN_BUCKET, instances));
    }

    @Benchmark
    public void ratelimit_sliding_perKeyInMap(Retained out) {
        out.bytesPerLimiter = storePerKey(SLIDING);
    }

    @Benchmark
    public void ratelimit_tokenBucket_perKeyInMap(Retained out) {
        out.bytesPerLimiter = storePerKey(TOKEN_BUCKET);
    }

    /**
     * Counts keyed by 7.8 KB header values ({@code X-Api-Key:} and 7 800 characters): the store's own tables after as
     * many partitions, per count. A partition longer than 64 bytes is kept as a digest, so this is what a short key
     * costs, not what the client sent.
     */
    @Benchmark
    public void ratelimit_sliding_longKeysInMap(Retained out) {
        out.bytesPerLimiter = (double) longKeysRetained(instances) / instances;
    }

    /** The bytes the store retains once {@code partitions} partitions of 7.8 KB header values each spent a permit. */
    public static long longKeysRetained(int partitions) {
        InProcessRateLimitStore store = new InProcessRateLimitStore(partitions, System::nanoTime);
        RateLimitRequest request = Ours.request(store, SLIDING);
        String value = "k".repeat(7_800);
        for (int i = 0; i < partitions; i++) {
            store.decide("X-Api-Key:" + i + value, request, 1);
        }
        if (Ours.countsKept(store) != partitions) {
            throw new IllegalStateException("expected " + partitions + " counts, the store keeps " + Ours.countsKept(store));
        }
        return GraphLayout.parseInstance(store).totalSize();
    }

    @Benchmark
    public void ratelimit_decision_limiter(Retained out) {
        InProcessRateLimitStore store = new InProcessRateLimitStore();
        RateLimitRequest request = Ours.request(store, SLIDING);
        store.decide(key(0), request, 1); // the count exists: the next decision is the common one
        RateLimitDecision decision = store.decide(key(0), request, 1);
        out.bytesPerLimiter = ClassLayout.parseInstance(decision).instanceSize()
                + ClassLayout.parseInstance(decision.outcome(0)).instanceSize();
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

    /** A store in which {@code partitions} partitions spent a permit of {@code policy}. */
    static InProcessRateLimitStore fill(InProcessRateLimitStore store, RateLimitPolicy policy, int partitions) {
        RateLimitRequest request = Ours.request(store, policy);
        for (int i = 0; i < partitions; i++) {
            store.decide(key(i), request, 1);
        }
        return store;
    }

    private double storePerKey(RateLimitPolicy policy) {
        InProcessRateLimitStore store = fill(new InProcessRateLimitStore(instances, System::nanoTime), policy, instances);
        if (Ours.countsKept(store) != instances) {
            throw new IllegalStateException("expected " + instances + " counts, the store keeps " + Ours.countsKept(store));
        }
        return (double) GraphLayout.parseInstance(store).totalSize() / instances;
    }

    /**
     * The counts themselves, as the store keeps them: the values of the table of {@code policy}'s key (the store's
     * handle on the key is that table, a map from partition to count; the count classes are the store's own).
     */
    private static Object[] counts(RateLimitPolicy policy, int partitions) {
        InProcessRateLimitStore store = fill(new InProcessRateLimitStore(partitions, System::nanoTime), policy, partitions);
        Object table = store.bind(new CountKey(policy.name(), null, policy.algorithm()));
        if (!(table instanceof Map<?, ?> counts)) {
            throw new IllegalStateException("the store's handle on a key is no longer its map of counts: " + table);
        }
        Object[] all = counts.values().toArray();
        if (all.length != partitions) {
            throw new IllegalStateException("expected " + partitions + " counts, found " + all.length);
        }
        return all;
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
