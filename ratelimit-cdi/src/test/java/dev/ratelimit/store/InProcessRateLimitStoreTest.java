package dev.ratelimit.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.fail;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitDecision.Outcome;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.testing.FakeClock;
import dev.ratelimit.testing.RandomSchedule;
import dev.ratelimit.testing.RateLimitStoreContract;
import dev.ratelimit.testing.ReferenceSlidingWindow;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The store contract, plus what only the in-process store does: its bounded table and its locking. */
class InProcessRateLimitStoreTest extends RateLimitStoreContract {

    private static final int THREADS = 64;

    @Override
    protected RateLimitStore newStore(FakeClock clock) {
        return new InProcessRateLimitStore(InProcessRateLimitStore.DEFAULT_MAX_TRACKED_PARTITIONS, clock);
    }

    private RateLimitDecision acquire(RateLimitStore on, String partition, List<RateLimitPolicy> policies) {
        return acquire(on, partition, policies.toArray(RateLimitPolicy[]::new));
    }

    // ---------------------------------------------------------------- lossless eviction

    /**
     * One randomized schedule against a store that never needs to evict, a store just big enough for
     * the counts in use that must sweep again and again, and the naive model: every decision the same.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 42, 31337})
    void evictionIsLossless(long seed) {
        int operations = 20_000;
        int capacity = countsInUseAtMost(seed, operations);
        InProcessRateLimitStore roomy = new InProcessRateLimitStore(Integer.MAX_VALUE, clock);
        InProcessRateLimitStore tight = new InProcessRateLimitStore(capacity, clock);
        ReferenceSlidingWindow model = new ReferenceSlidingWindow();
        RandomSchedule schedule = new RandomSchedule(seed, "", 1);
        List<RateLimitDecision[]> unreleased = new ArrayList<>();
        List<ReferenceSlidingWindow.Decision> unreleasedModel = new ArrayList<>();
        Set<List<String>> keys = new HashSet<>();
        int sweeps = 0;
        int refused = 0;
        int givenBack = 0;
        for (int i = 0; i < operations; i++) {
            clock.advanceNanos(schedule.nextAdvanceNanos());
            long now = clock.now();
            String where = "seed " + seed + ", operation " + i + " at t0 + " + (now - t0) + " ns";
            if (schedule.nextIsRelease() && !unreleased.isEmpty()) {
                int index = schedule.nextReleaseIndex(unreleased.size());
                RateLimitDecision[] pair = unreleased.remove(index);
                roomy.release(pair[0]);
                tight.release(pair[1]);
                model.release(now, unreleasedModel.remove(index));
                givenBack++;
                continue;
            }
            String partition = schedule.nextPartition();
            List<RateLimitPolicy> policies = schedule.nextPolicies();
            policies.forEach(p -> keys.add(List.of(p.name(), partition)));
            int trackedBefore = tight.trackedCounts();

            RateLimitDecision inRoomy = acquire(roomy, partition, policies);
            RateLimitDecision inTight = acquire(tight, partition, policies);
            ReferenceSlidingWindow.Decision expected = model.acquire(now, partition, policies);

            assertMatches(inRoomy, expected, where);
            assertSameDecision(inTight, inRoomy, where);
            assertThat(tight.trackedCounts()).as("tracked, %s", where).isLessThanOrEqualTo(capacity);
            if (tight.trackedCounts() < trackedBefore) {
                sweeps++;
            }
            if (inRoomy.allowed()) {
                unreleased.add(new RateLimitDecision[] {inRoomy, inTight});
                unreleasedModel.add(expected);
            } else {
                refused++;
            }
        }
        assertThat(keys.size()).as("distinct counts over the schedule").isGreaterThan(10 * capacity);
        assertThat(roomy.trackedCounts()).isEqualTo(keys.size());
        assertThat(sweeps).as("sweeps that dropped counts").isGreaterThan(50);
        assertThat(refused).as("refused").isGreaterThan(1000);
        assertThat(givenBack).as("given back").isGreaterThan(2000);
    }

    /**
     * The most counts the schedule keeps in use, from a dry run against the model. A count untouched for
     * its longest window has every permit back, and the store sweeps at most once a second; so a table
     * that holds every count touched within (longest window of its name + 1 s) of each request never
     * has to let a request through uncounted.
     */
    private static int countsInUseAtMost(long seed, int operations) {
        Map<String, Long> windowOfName = new HashMap<>();
        for (RateLimitPolicy p : List.of(RandomSchedule.BURST, RandomSchedule.EIGHT, RandomSchedule.SHARED_SMALL,
                RandomSchedule.SHARED_BIG)) {
            windowOfName.merge(p.name(), p.windowSeconds() * SECOND, Math::max);
        }
        RandomSchedule schedule = new RandomSchedule(seed, "", 1);
        ReferenceSlidingWindow model = new ReferenceSlidingWindow();
        List<ReferenceSlidingWindow.Decision> unreleased = new ArrayList<>();
        Map<List<String>, Long> lastTouched = new HashMap<>();
        long now = 0;
        int most = 0;
        for (int i = 0; i < operations; i++) {
            now += schedule.nextAdvanceNanos();
            if (schedule.nextIsRelease() && !unreleased.isEmpty()) {
                model.release(now, unreleased.remove(schedule.nextReleaseIndex(unreleased.size())));
                continue;
            }
            String partition = schedule.nextPartition();
            List<RateLimitPolicy> policies = schedule.nextPolicies();
            ReferenceSlidingWindow.Decision decision = model.acquire(now, partition, policies);
            if (decision.allowed()) {
                unreleased.add(decision);
            }
            for (RateLimitPolicy p : policies) {
                lastTouched.put(List.of(p.name(), partition), now);
            }
            for (Iterator<Map.Entry<List<String>, Long>> it = lastTouched.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<List<String>, Long> e = it.next();
                if (e.getValue() < now - windowOfName.get(e.getKey().get(0)) - SECOND) {
                    it.remove();
                }
            }
            most = Math.max(most, lastTouched.size());
        }
        return most;
    }

    private static void assertSameDecision(RateLimitDecision actual, RateLimitDecision expected, String where) {
        assertThat(actual.allowed()).as("allowed, %s", where).isEqualTo(expected.allowed());
        for (int i = 0; i < expected.outcomes().size(); i++) {
            Outcome a = actual.outcomes().get(i);
            Outcome e = expected.outcomes().get(i);
            assertThat(a.policy()).as("policy, %s", where).isSameAs(e.policy());
            assertThat(a.allowed()).as("allowed by %s, %s", e.policy(), where).isEqualTo(e.allowed());
            assertThat(a.remaining()).as("remaining of %s, %s", e.policy(), where).isEqualTo(e.remaining());
            assertThat(a.resetNanos()).as("reset of %s, %s", e.policy(), where).isEqualTo(e.resetNanos());
            assertThat(a.spent()).as("spent from %s, %s", e.policy(), where).isEqualTo(e.spent());
        }
    }

    // ---------------------------------------------------------------- a full table

    @Test
    void fullTableLetsANewCountThroughUncountedAndStillDecidesExistingCounts() {
        InProcessRateLimitStore small = new InProcessRateLimitStore(3, clock);
        RateLimitPolicy limit = policy("full", 2, 8);
        for (String p : List.of("a", "b", "c")) {
            assertThat(acquire(small, p, limit).outcomes().get(0).spent()).isTrue();
        }
        assertThat(small.trackedCounts()).isEqualTo(3);

        for (int i = 0; i < 5; i++) {
            RateLimitDecision uncounted = acquire(small, "d", limit);
            assertThat(uncounted.allowed()).isTrue();
            Outcome o = uncounted.outcomes().get(0);
            assertThat(o.remaining()).isEqualTo(2);
            assertThat(o.resetNanos()).isEqualTo(-1);
            assertThat(o.resetSeconds()).isEqualTo(8);
            assertThat(o.spent()).isFalse();
            small.release(uncounted);
        }
        assertThat(small.trackedCounts()).isEqualTo(3);

        assertOutcome(acquire(small, "a", limit).outcomes().get(0), limit, true, 0, 8 * SECOND);
        assertOutcome(acquire(small, "a", limit).outcomes().get(0), limit, false, 0, 8 * SECOND);
        assertThat(small.trackedCounts()).isEqualTo(3);
    }

    @Test
    void fullTableCountsTheExistingLimitOfATwoLimitRequestAndLetsTheNewOneThrough() {
        InProcessRateLimitStore small = new InProcessRateLimitStore(1, clock);
        RateLimitPolicy known = policy("known", 2, 60);
        RateLimitPolicy unknown = policy("unknown", 5, 30);
        acquire(small, "p", known);

        RateLimitDecision both = acquire(small, "p", known, unknown);
        assertThat(both.allowed()).isTrue();
        assertOutcome(both.outcomes().get(0), known, true, 0, 60 * SECOND);
        assertThat(both.outcomes().get(0).spent()).isTrue();
        assertOutcome(both.outcomes().get(1), unknown, true, 5, -1);
        assertThat(both.outcomes().get(1).spent()).isFalse();

        RateLimitDecision refused = acquire(small, "p", known, unknown);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.refused()).extracting(Outcome::policy).containsExactly(known);
        assertThat(small.trackedCounts()).isEqualTo(1);
    }

    @Test
    void fullTableTracksNewCountsAgainOnceTheLiveCountsEmptiedAndASecondPassed() {
        InProcessRateLimitStore small = new InProcessRateLimitStore(2, clock);
        RateLimitPolicy limit = policy("full", 2, 8);
        acquire(small, "a", limit);
        acquire(small, "b", limit);
        assertThat(acquire(small, "c", limit).outcomes().get(0).spent()).isFalse();

        clock.advanceSeconds(8); // a and b are empty now

        assertOutcome(acquire(small, "c", limit).outcomes().get(0), limit, true, 1, 8 * SECOND);
        assertThat(small.trackedCounts()).isEqualTo(1);
        assertOutcome(acquire(small, "d", limit).outcomes().get(0), limit, true, 1, 8 * SECOND);
        assertThat(small.trackedCounts()).isEqualTo(2);
        assertThat(acquire(small, "e", limit).outcomes().get(0).spent()).isFalse();
        assertThat(small.trackedCounts()).isEqualTo(2);
    }

    @Test
    void fullTableSweepsAtMostOncePerSecond() {
        InProcessRateLimitStore small = new InProcessRateLimitStore(2, clock);
        RateLimitPolicy limit = policy("full", 1, 60);
        RateLimitDecision a = acquire(small, "a", limit);
        acquire(small, "b", limit);
        assertThat(acquire(small, "c", limit).outcomes().get(0).spent()).isFalse(); // swept at t0: nothing to drop
        clock.set(t0 + 500_000_000L);
        small.release(a); // a is empty now, but the last sweep was half a second ago

        assertThat(acquire(small, "c", limit).outcomes().get(0).spent()).isFalse();
        clock.set(t0 + SECOND - 1);
        assertThat(acquire(small, "c", limit).outcomes().get(0).spent()).isFalse();
        clock.set(t0 + SECOND);
        assertOutcome(acquire(small, "c", limit).outcomes().get(0), limit, true, 0, 60 * SECOND);
        assertThat(small.trackedCounts()).isEqualTo(2);
        assertThat(acquire(small, "b", limit).allowed()).isFalse(); // b was in use: kept
    }

    @Test
    void fullTableWarnsAtMostOncePerMinute() {
        Logger logger = Logger.getLogger(InProcessRateLimitStore.class.getName());
        List<LogRecord> warnings = Collections.synchronizedList(new ArrayList<>());
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                    warnings.add(record);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        boolean parents = logger.getUseParentHandlers();
        logger.addHandler(handler);
        logger.setUseParentHandlers(false);
        try {
            InProcessRateLimitStore small = new InProcessRateLimitStore(1, clock);
            RateLimitPolicy limit = policy("full", 1, 3600);
            acquire(small, "a", limit);
            for (int i = 0; i < 100; i++) {
                acquire(small, "new" + i, limit);
                clock.advanceMillis(500);
            }
            assertThat(warnings).hasSize(1);
            assertThat(warnings.get(0).getMessage()).contains("ratelimit.max-tracked-partitions");

            clock.advanceSeconds(10); // 60 s after the first warning
            acquire(small, "later", limit);
            assertThat(warnings).hasSize(2);
        } finally {
            logger.removeHandler(handler);
            logger.setUseParentHandlers(parents);
        }
    }

    @Test
    void maximumBelowOneIsRejected() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new InProcessRateLimitStore(0, clock))
                .withMessage("maxTrackedPartitions must be >= 1, was 0");
    }

    // ---------------------------------------------------------------- the nano clock's range

    @Test
    void countsWorkWhenTheNanoClockReadsNegative() {
        FakeClock negative = new FakeClock(-5_000_000_000_123L);
        long start = negative.now();
        InProcessRateLimitStore onNegative = new InProcessRateLimitStore(10, negative);
        RateLimitPolicy limit = policy("default", 3, 60);

        for (int i = 0; i < 3; i++) {
            acquire(onNegative, "p", limit);
        }
        negative.advanceSeconds(18);
        assertOutcome(acquire(onNegative, "p", limit).outcomes().get(0), limit, false, 0, 42 * SECOND);
        negative.set(start + 60 * SECOND - 1);
        assertOutcome(acquire(onNegative, "p", limit).outcomes().get(0), limit, false, 0, 1);
        negative.set(start + 60 * SECOND);
        assertOutcome(acquire(onNegative, "p", limit).outcomes().get(0), limit, true, 2, 60 * SECOND);
    }

    /**
     * {@code System.nanoTime()} has an arbitrary origin and may overflow: only differences between
     * readings are meaningful. A count made just before the reading wraps past {@code Long.MAX_VALUE}
     * must still see its permits return one window later.
     */
    @Test
    void permitsReturnWhenTheNanoClockWrapsAroundDuringTheWindow() {
        FakeClock nearWrap = new FakeClock(Long.MAX_VALUE - 3 * SECOND);
        InProcessRateLimitStore onWrap = new InProcessRateLimitStore(10, nearWrap);
        RateLimitPolicy limit = policy("wrap", 1, 8);
        assertOutcome(acquire(onWrap, "p", limit).outcomes().get(0), limit, true, 0, 8 * SECOND);

        nearWrap.advanceSeconds(4); // the reading is negative now
        assertOutcome(acquire(onWrap, "p", limit).outcomes().get(0), limit, false, 0, 4 * SECOND);
        nearWrap.advanceSeconds(4);

        assertOutcome(acquire(onWrap, "p", limit).outcomes().get(0), limit, true, 0, 8 * SECOND);
    }

    // ---------------------------------------------------------------- concurrency

    @Test
    void sixtyFourThreadsOnOneCountAdmitExactlyThePermitLimit() {
        InProcessRateLimitStore shared = new InProcessRateLimitStore(10, clock); // the clock stands still
        int permits = 20_000;
        int attemptsPerThread = 500;
        RateLimitPolicy limit = policy("hot", permits, 60);
        ConcurrentLinkedQueue<Integer> remainingOfAdmitted = new ConcurrentLinkedQueue<>();
        AtomicInteger refused = new AtomicInteger();

        runConcurrently(thread -> {
            for (int i = 0; i < attemptsPerThread; i++) {
                RateLimitDecision d = acquire(shared, "one", limit);
                if (d.allowed()) {
                    remainingOfAdmitted.add(d.outcomes().get(0).remaining());
                } else {
                    refused.incrementAndGet();
                }
            }
        });

        assertThat(remainingOfAdmitted).hasSize(permits);
        assertThat(new HashSet<>(remainingOfAdmitted)).as("every remaining value seen once")
                .isEqualTo(IntStream.range(0, permits).boxed().collect(Collectors.toSet()));
        assertThat(refused.get()).isEqualTo(THREADS * attemptsPerThread - permits);
        assertThat(acquire(shared, "one", limit).allowed()).isFalse();
    }

    @Test
    void twoLimitsAcrossSixtyFourThreadsAdmitExactlyTheSmallerLimitAllOrNothing() {
        InProcessRateLimitStore shared = new InProcessRateLimitStore(10, clock);
        int permitsA = 10_000;
        int permitsB = 15_000;
        RateLimitPolicy a = policy("a", permitsA, 60);
        RateLimitPolicy b = policy("b", permitsB, 60);
        ConcurrentLinkedQueue<int[]> admitted = new ConcurrentLinkedQueue<>();

        runConcurrently(thread -> {
            for (int i = 0; i < 250; i++) {
                boolean abOrder = (thread + i) % 2 == 0;
                RateLimitDecision d = abOrder ? acquire(shared, "p", a, b) : acquire(shared, "p", b, a);
                if (d.allowed()) {
                    int remainingA = d.outcomes().get(abOrder ? 0 : 1).remaining();
                    int remainingB = d.outcomes().get(abOrder ? 1 : 0).remaining();
                    admitted.add(new int[] {remainingA, remainingB});
                }
            }
        });

        assertThat(admitted).hasSize(permitsA);
        assertThat(admitted.stream().map(r -> r[0]).collect(Collectors.toSet())).as("remaining of a, each once")
                .isEqualTo(IntStream.range(0, permitsA).boxed().collect(Collectors.toSet()));
        assertThat(admitted).allSatisfy(r -> assertThat(r[1] - r[0]).as("b spent together with a")
                .isEqualTo(permitsB - permitsA));
        assertThat(acquire(shared, "p", a).allowed()).isFalse();
        assertOutcome(acquire(shared, "p", b).outcomes().get(0), b, true, permitsB - permitsA - 1, 60 * SECOND);
    }

    @Test
    void requestsListingTwoNamesInOppositeOrdersDoNotDeadlockAndGiveEveryPermitBack() {
        InProcessRateLimitStore shared = new InProcessRateLimitStore(10, clock);
        RateLimitPolicy a = policy("a", Integer.MAX_VALUE, 60);
        RateLimitPolicy b = policy("b", 1_000_000, 60);
        AtomicInteger admitted = new AtomicInteger();

        runConcurrently(thread -> {
            for (int i = 0; i < 2_000; i++) {
                RateLimitDecision d = thread % 2 == 0 ? acquire(shared, "p", a, b) : acquire(shared, "p", b, a);
                if (d.allowed()) {
                    admitted.incrementAndGet();
                    shared.release(d);
                }
            }
        });

        assertThat(admitted.get()).isEqualTo(THREADS * 2_000);
        RateLimitDecision after = acquire(shared, "p", a, b);
        assertOutcome(after.outcomes().get(0), a, true, Integer.MAX_VALUE - 1, 60 * SECOND);
        assertOutcome(after.outcomes().get(1), b, true, 1_000_000 - 1, 60 * SECOND);
    }

    @Test
    void tableNeverHoldsMoreThanItsMaximumUnderContention() {
        InProcessRateLimitStore small = new InProcessRateLimitStore(100, clock);
        RateLimitPolicy limit = policy("many", 5, 60);
        AtomicInteger counted = new AtomicInteger();
        AtomicInteger uncounted = new AtomicInteger();

        runConcurrently(thread -> {
            for (int i = 0; i < 50; i++) {
                RateLimitDecision d = acquire(small, "t" + thread + "-" + i, limit);
                assertThat(d.allowed()).isTrue();
                (d.outcomes().get(0).spent() ? counted : uncounted).incrementAndGet();
            }
        });

        assertThat(counted.get()).isEqualTo(100);
        assertThat(uncounted.get()).isEqualTo(THREADS * 50 - 100);
        assertThat(small.trackedCounts()).isEqualTo(100);
    }

    /** Runs {@code body(thread)} on {@value #THREADS} threads released together; fails if they do not all end within 30 s. */
    private static void runConcurrently(IntConsumer body) {
        CountDownLatch ready = new CountDownLatch(THREADS);
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(THREADS);
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int index = t;
            Thread thread = new Thread(() -> {
                try {
                    ready.countDown();
                    start.await();
                    body.accept(index);
                } catch (Throwable e) {
                    failures.add(e);
                } finally {
                    done.countDown();
                }
            }, "store-test-" + t);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        try {
            assertThat(ready.await(30, TimeUnit.SECONDS)).as("threads ready").isTrue();
            start.countDown();
            if (!done.await(30, TimeUnit.SECONDS)) {
                StringBuilder stuck = new StringBuilder();
                for (Thread thread : threads) {
                    if (thread.isAlive()) {
                        stuck.append(thread.getName()).append(' ').append(thread.getState()).append('\n');
                        for (StackTraceElement frame : thread.getStackTrace()) {
                            stuck.append("    at ").append(frame).append('\n');
                        }
                    }
                }
                fail("threads still running after 30 s (deadlock?):%n%s", stuck);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted");
        }
        if (!failures.isEmpty()) {
            AssertionError error = new AssertionError(failures.size() + " thread(s) failed", failures.peek());
            failures.stream().skip(1).forEach(error::addSuppressed);
            throw error;
        }
    }
}
