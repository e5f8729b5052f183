package dev.ratelimit.benchmarks.inprocess;

import dev.ratelimit.benchmarks.support.Ours;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 * The floor under {@link HotKey1Thread}'s {@code ratelimit_storeDecide}: the steps every exact per-caller
 * limiter of this design takes, built up one at a time, beside the store itself. Read the differences:
 * <ul>
 *   <li>{@code clock}: {@code System.nanoTime} alone;</li>
 *   <li>{@code clockMap}: and the caller's state found in a {@code ConcurrentHashMap} (as every peer here does);</li>
 *   <li>{@code clockMapCas}: and one compare-and-set of a word of that state (the least an exact count
 *       shared between threads needs; Bucket4j's {@code synchronized} takes two);</li>
 *   <li>{@code clockMapCasDecision}: and the decision the store returns (a {@link RateLimitDecision} and its
 *       {@link Outcome}, 88 B);</li>
 *   <li>{@code store}: {@code InProcessRateLimitStore.decide}, which adds the count's arithmetic to the above.</li>
 * </ul>
 * The same for two limits on one request ({@link TwoLimits}): {@code twoClockMapCasDecision} finds two states and
 * sets a word of each (two compare-and-sets, as Bucket4j's {@code synchronized} takes two), then makes the decision
 * of two outcomes (136 B); {@code twoStore} is the store's decision of two limits.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
@Threads(1)
@State(Scope.Benchmark)
public class Floor {

    private static final VarHandle WORD;

    static {
        try {
            WORD = MethodHandles.lookup().findVarHandle(Word.class, "word", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A caller's state reduced to one word. */
    static final class Word {
        volatile long word;
    }

    String key = "sub:alice";
    final RateLimitPolicy policy = Ours.policy("hot");
    final RateLimitPolicy second = Ours.policy("hourly");
    final ConcurrentHashMap<String, Word> words = new ConcurrentHashMap<>();
    final ConcurrentHashMap<String, Word> secondWords = new ConcurrentHashMap<>();
    InProcessRateLimitStore store;
    RateLimitRequest request;
    RateLimitRequest twoRequest;

    @Setup
    public void setUp() {
        words.put(key, new Word());
        secondWords.put(key, new Word());
        store = new InProcessRateLimitStore();
        request = Ours.request(store, policy);
        twoRequest = Ours.request(store, Ours.policy("burst"), second);
        Checks.allowed(store.decide(key, request, 1));
        Checks.allowed(store.decide(key, twoRequest, 1));
        System.gc();
    }

    @Benchmark
    public long clock() {
        return System.nanoTime();
    }

    @Benchmark
    public Object clockMap() {
        long now = System.nanoTime();
        Word w = words.get(key);
        return now == 0 ? null : w;
    }

    @Benchmark
    public boolean clockMapCas() {
        long now = System.nanoTime();
        Word state = words.get(key);
        long w = (long) WORD.getAcquire(state);
        return WORD.compareAndSet(state, w, w + (now & 1) + 1);
    }

    @Benchmark
    public RateLimitDecision clockMapCasDecision() {
        long now = System.nanoTime();
        Word state = words.get(key);
        long w = (long) WORD.getAcquire(state);
        if (!WORD.compareAndSet(state, w, w + 1)) {
            return null;
        }
        Outcome outcome = new Outcome(policy, RateLimitDecision.State.SPENT, (int) w, now, 0, w);
        return RateLimitDecision.of(key, request, 1, outcome);
    }

    @Benchmark
    public RateLimitDecision store() {
        return store.decide(key, request, 1);
    }

    @Benchmark
    public RateLimitDecision twoClockMapCasDecision() {
        long now = System.nanoTime();
        Word first = words.get(key);
        Word other = secondWords.get(key);
        long w = (long) WORD.getAcquire(first);
        if (!WORD.compareAndSet(first, w, w + 1)) {
            return null;
        }
        long v = (long) WORD.getAcquire(other);
        if (!WORD.compareAndSet(other, v, v + 1)) {
            return null;
        }
        return RateLimitDecision.of(key, twoRequest, 1, new Outcome(policy, RateLimitDecision.State.SPENT, (int) w, now, 0, w),
                new Outcome(second, RateLimitDecision.State.SPENT, (int) v, now, 0, v));
    }

    @Benchmark
    public RateLimitDecision twoStore() {
        return store.decide(key, twoRequest, 1);
    }
}
