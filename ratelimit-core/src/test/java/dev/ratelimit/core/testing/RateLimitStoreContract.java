package dev.ratelimit.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.CountState;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.testing.ReferenceModel.Item;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What every {@link RateLimitStore} must do (what a limit counts, the numbers the headers report, the store's
 * duties, the algorithms, cost and debt), whatever keeps its counts: the
 * in-process store and the Redis store extend this class, so they are provably the same limiter.
 *
 * <h2>Using it</h2>
 * <pre>{@code
 * class RedisRateLimitStoreTest extends RateLimitStoreContract {
 *     @Override
 *     protected RateLimitStore newStore(ManualClock clock) { ... a store whose time is clock ... }
 * }
 * }</pre>
 * It ships in the {@code ratelimit-core} test-jar ({@code <type>test-jar</type>}, test scope); the
 * extending module needs JUnit Jupiter (with {@code junit-jupiter-params}) and AssertJ on its test
 * classpath.
 *
 * <h2>The API a store test may use or override (stable)</h2>
 * <ul>
 *   <li>{@link #newStore(ManualClock)} (required): a fresh store, empty as far as this test can see, whose
 *       time is the given clock. Called once per test, before it.</li>
 *   <li>{@link #acquire(String, RateLimitRequest, int)}: decides synchronously (joins the stage, 10 s at most).</li>
 *   <li>{@link #release(RateLimitDecision)}: gives back, returning once the permits are back.</li>
 *   <li>{@link #clockResolutionNanos()}: the finest time step the store resolves (1 ns by default; a store
 *       that keeps microseconds returns 1000). Tests that probe "one instant before a boundary" step back by
 *       this much, and the randomized schedule advances in multiples of it.</li>
 *   <li>{@link #closeStore(RateLimitStore)}: called after each test (no-op by default).</li>
 *   <li>{@link #partition(String)}: a partition unique to the running test (the store may be shared between
 *       tests, as a Redis server is). Counts per application ({@code CountKey.perApplication()}) are one for every
 *       partition, so a store shared between tests must be emptied before each (the Redis test flushes).</li>
 *   <li>{@link #request}: a request of the given limits, bound to the store under test.</li>
 * </ul>
 * Protected fields: {@link #clock}, {@link #store}, {@link #t0} (the clock when the test began).
 *
 * <p>Times are exact: a store must report {@code resetNanos} and {@code retryAfterNanos} to the nanosecond
 * (at its resolution), with {@code -1} allowed only for a count with nothing spent (then
 * {@code resetSeconds()} is the window). The clock starts at {@link ManualClock#DEFAULT_START} and only moves
 * forward. The randomized tests compare the store with {@link ReferenceModel} on a {@link RandomSchedule};
 * both ship in the same test-jar.
 */
public abstract class RateLimitStoreContract {

    protected static final long SECOND = 1_000_000_000L;

    /** The clock of {@link #store}; tests move it. */
    protected ManualClock clock;
    /** The store under test, fresh for every test. */
    protected RateLimitStore store;
    /** The clock's reading when the test began. */
    protected long t0;

    private String partitionPrefix;
    private final Map<String, Bound> bound = new HashMap<>();

    private record Bound(CountKey key, Object handle) {
    }

    /** A fresh, empty store whose time is the given manual clock (nanoseconds). */
    protected abstract RateLimitStore newStore(ManualClock clock);

    /** Decides synchronously (joins the stage). */
    protected RateLimitDecision acquire(String partition, RateLimitRequest request, int multiple) {
        try {
            return store.acquire(partition, request, multiple).toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while deciding", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("the store did not decide: " + e, e);
        }
    }

    /** Gives back synchronously: returns once the permits are back. */
    protected void release(RateLimitDecision decision) {
        try {
            store.release(decision).toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while giving back", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("the store did not give back: " + e, e);
        }
    }

    /** The finest time step the store resolves, in nanoseconds; a divisor of 125 ms. */
    protected long clockResolutionNanos() {
        return 1;
    }

    /** Releases what {@link #newStore} acquired. */
    protected void closeStore(RateLimitStore store) {
    }

    /** A partition no other test (nor another run) uses. */
    protected final String partition(String suffix) {
        return partitionPrefix + suffix;
    }

    protected static RateLimitPolicy policy(String name, int permitLimit, int windowSeconds) {
        return new RateLimitPolicy(name, permitLimit, windowSeconds);
    }

    protected static RateLimitPolicy policy(String name, int permitLimit, int windowSeconds, RateLimitAlgorithm algorithm) {
        return new RateLimitPolicy(name, permitLimit, windowSeconds, algorithm);
    }

    /** A request of enforced limits of cost 1, bound to the store under test. */
    protected final RateLimitRequest request(RateLimitPolicy... policies) {
        List<Item> items = new ArrayList<>();
        for (RateLimitPolicy policy : policies) {
            items.add(new Item(policy));
        }
        return request(items);
    }

    /** A request of the given limits, bound to the store under test (each (name, plan) bound once per test). */
    protected final RateLimitRequest request(List<Item> items) {
        RateLimitRequest.Builder builder = RateLimitRequest.builder();
        for (Item item : items) {
            Bound b = bound.computeIfAbsent(item.key(), k -> {
                CountKey key = new CountKey(item.policy().name(), item.plan(), item.policy().algorithm(),
                        item.perApplication() ? RateLimitPer.APPLICATION : RateLimitPer.CALLER);
                return new Bound(key, store.bind(key));
            });
            builder.add(b.handle, b.key, item.policy(), item.cost(), item.kind(), item.maxWaitNanos());
        }
        return builder.build();
    }

    /** Decides a request of enforced limits of cost 1. */
    protected final RateLimitDecision acquire(String partition, RateLimitPolicy... policies) {
        return acquire(partition, request(policies), 1);
    }

    /** The outcome of a request of one enforced limit of cost 1. */
    protected final Outcome one(String partition, RateLimitPolicy policy) {
        return acquire(partition, policy).outcome(0);
    }

    @BeforeEach
    final void createStore(TestInfo info) {
        partitionPrefix = info.getTestMethod().map(Method::getName).orElse("test") + "-"
                + UUID.randomUUID().toString().substring(0, 8) + "-";
        clock = new ManualClock();
        t0 = clock.now();
        store = newStore(clock);
    }

    @AfterEach
    final void disposeStore() {
        if (store != null) {
            closeStore(store);
        }
    }

    // ---------------------------------------------------------------- the example of docs/responses.md, "Headers"

    @Test
    void firstRequestOfTheSpecExampleLeavesTwoAndResetsInSixtySeconds() {
        RateLimitPolicy limit = policy("default", 3, 60);

        RateLimitDecision first = acquire(partition("todos"), limit);

        assertThat(first.allowed()).isTrue();
        assertThat(first.partition()).isEqualTo(partition("todos"));
        assertThat(first.outcomes()).hasSize(1);
        assertOutcome(first.outcome(0), limit, true, 2, 60 * SECOND);
        assertThat(first.outcome(0).resetSeconds()).isEqualTo(60);
        assertThat(first.outcome(0).state()).isEqualTo(State.SPENT);
        assertThat(first.retryAfterSeconds()).isZero();
    }

    @Test
    void fourthRequestEighteenSecondsAfterTheFirstIsRefusedForFortyTwoSeconds() {
        RateLimitPolicy limit = policy("default", 3, 60);
        String p = partition("todos");

        assertOutcome(one(p, limit), limit, true, 2, 60 * SECOND);
        assertOutcome(one(p, limit), limit, true, 1, 60 * SECOND);
        assertOutcome(one(p, limit), limit, true, 0, 60 * SECOND);
        clock.advanceSeconds(18);
        RateLimitDecision fourth = acquire(p, limit);

        assertThat(fourth.allowed()).isFalse();
        assertOutcome(fourth.outcome(0), limit, false, 0, 42 * SECOND);
        assertThat(fourth.outcome(0).state()).isEqualTo(State.REFUSED);
        assertThat(fourth.outcome(0).retryAfterNanos()).isEqualTo(42 * SECOND);
        assertThat(fourth.retryAfterSeconds()).isEqualTo(42);
        assertThat(fourth.outcome(0).resetSeconds()).isEqualTo(42);
        assertThat(fourth.refused()).containsExactly(fourth.outcome(0));
    }

    @Test
    void permitsSpentInOneStepReturnTogetherOneWindowAfterTheStepStarts() {
        RateLimitPolicy limit = policy("default", 3, 60); // steps of 7.5 s
        String p = partition("todos");

        one(p, limit);
        clock.set(t0 + 5 * SECOND); // still step 0
        assertOutcome(one(p, limit), limit, true, 1, 55 * SECOND);
        clock.set(t0 + 10 * SECOND); // step 1
        assertOutcome(one(p, limit), limit, true, 0, 50 * SECOND);
        clock.set(t0 + 60 * SECOND); // both step-0 permits are back, the step-1 one is not

        assertOutcome(one(p, limit), limit, true, 1, 7_500_000_000L);
    }

    // ---------------------------------------------------------------- steps

    @ParameterizedTest(name = "window {0} s, permit spent in step {1}")
    @CsvSource({"1, 0", "1, 3", "1, 7", "8, 0", "8, 1", "8, 5", "8, 7", "60, 2", "60, 7", "3600, 4",
            "31536000, 6"})
    void permitSpentInStepKReturnsExactlyAtAnchorPlusKPlusEightSteps(int windowSeconds, int k) {
        RateLimitPolicy limit = policy("steps", 2, windowSeconds);
        String p = partition("k" + k);
        long step = windowSeconds * SECOND / 8;
        long r = clockResolutionNanos();
        long intoStepK = k * step + step / 2;

        assertOutcome(one(p, limit), limit, true, 1, 8 * step); // step 0: anchors
        clock.set(t0 + intoStepK);
        assertOutcome(one(p, limit), limit, true, 0, 8 * step - intoStepK);

        clock.set(t0 + 8 * step - r);
        assertOutcome(one(p, limit), limit, false, 0, r);
        clock.set(t0 + 8 * step);
        if (k == 0) {
            // both permits of step 0 are back: the count is empty and re-anchors here
            assertOutcome(one(p, limit), limit, true, 1, 8 * step);
            return;
        }
        assertOutcome(one(p, limit), limit, true, 0, k * step);
        clock.set(t0 + (k + 8) * step - r);
        assertOutcome(one(p, limit), limit, false, 0, r);
        clock.set(t0 + (k + 8) * step);
        assertOutcome(one(p, limit), limit, true, 0, (8 - k) * step);
    }

    @ParameterizedTest(name = "window {0} s, permit spent in step {1}")
    @CsvSource({"1, 0", "1, 5", "8, 0", "8, 3", "8, 7", "60, 6", "31536000, 2"})
    void strictWindowPermitSpentInStepKReturnsAtAnchorPlusKPlusNineSteps(int windowSeconds, int k) {
        RateLimitPolicy limit = policy("strict", 2, windowSeconds, RateLimitAlgorithm.STRICT_WINDOW);
        String p = partition("k" + k);
        long step = windowSeconds * SECOND / 8;
        long r = clockResolutionNanos();
        long intoStepK = k * step + step / 2;

        assertOutcome(one(p, limit), limit, true, 1, 9 * step);
        clock.set(t0 + intoStepK);
        assertOutcome(one(p, limit), limit, true, 0, 9 * step - intoStepK);

        clock.set(t0 + 9 * step - r); // a sliding window would have the step-0 permit back one step ago
        assertOutcome(one(p, limit), limit, false, 0, r);
        clock.set(t0 + 9 * step);
        if (k == 0) {
            assertOutcome(one(p, limit), limit, true, 1, 9 * step);
            return;
        }
        assertOutcome(one(p, limit), limit, true, 0, k * step);
        clock.set(t0 + (k + 9) * step - r);
        assertOutcome(one(p, limit), limit, false, 0, r);
        clock.set(t0 + (k + 9) * step);
        assertOutcome(one(p, limit), limit, true, 0, (9 - k) * step);
    }

    @Test
    void refusedAcquireSpendsNothing() {
        RateLimitPolicy limit = policy("refused", 2, 8); // steps of 1 s
        String p = partition("a");
        one(p, limit); // step 0
        clock.set(t0 + 4 * SECOND);
        one(p, limit); // step 4

        for (int i = 0; i < 10; i++) {
            clock.set(t0 + 5 * SECOND + i * 250_000_000L);
            assertThat(acquire(p, limit).allowed()).isFalse();
        }
        clock.set(t0 + 8 * SECOND);

        assertOutcome(one(p, limit), limit, true, 0, 4 * SECOND);
    }

    // ---------------------------------------------------------------- the densest span

    @ParameterizedTest(name = "{0}")
    @EnumSource(RateLimitAlgorithm.class)
    void aClientThatRetriesAtOnceNeverExceedsTheAlgorithmsBoundInAnySpanOfOneWindow(RateLimitAlgorithm algorithm) {
        RateLimitPolicy limit = policy("span", 5, 1, algorithm);
        String p = partition("a");
        long tick = Math.max(clockResolutionNanos(), 5_000_000L); // a request every 5 ms for 6 s
        List<Long> admitted = new ArrayList<>();
        for (long t = 0; t < 6 * SECOND; t += tick) {
            clock.set(t0 + t);
            if (acquire(p, limit).allowed()) {
                admitted.add(t);
            }
        }
        int densest = 0;
        for (int i = 0; i < admitted.size(); i++) {
            int j = i;
            while (j < admitted.size() && admitted.get(j) - admitted.get(i) < SECOND) {
                j++;
            }
            densest = Math.max(densest, j - i);
        }
        int bound = algorithm == RateLimitAlgorithm.STRICT_WINDOW ? 5 : 9;
        assertThat(densest).as("most admitted in any 1 s span by %s", algorithm).isLessThanOrEqualTo(bound);
        // and each keeps its sustained rate: about 5 per second (strict: 8/9 of it) over the 6 s
        int floor = algorithm == RateLimitAlgorithm.STRICT_WINDOW ? 26 : 30;
        assertThat(admitted).as("admitted by %s over 6 s", algorithm).hasSizeBetween(floor, 35);
    }

    // ---------------------------------------------------------------- waiting for a permit

    /** A request of one enforced limit of cost 1 that may wait {@code maxWaitNanos}. */
    protected final RateLimitRequest waiting(RateLimitPolicy policy, long maxWaitNanos) {
        return request(List.of(Item.waiting(policy, maxWaitNanos)));
    }

    @Test
    void reservationsAreGrantedInTheOrderAskedEachWhenItsPermitsExist() {
        RateLimitPolicy partner = policy("partner", 2, 1, RateLimitAlgorithm.STRICT_WINDOW); // steps of 125 ms
        String p = partition("a");
        long step = SECOND / 8;
        long[] waits = new long[6];
        for (int i = 0; i < 6; i++) {
            RateLimitDecision d = acquire(p, waiting(partner, 5 * SECOND), 1);
            assertThat(d.allowed()).as("call %d", i).isTrue();
            waits[i] = d.waitNanos();
            assertThat(d.outcome(0).waitNanos()).isEqualTo(d.waitNanos());
        }
        // two now; a strict window's permits return one window after the end of their step: two in step 9, two in 18
        assertThat(waits).containsExactly(0, 0, 9 * step, 9 * step, 18 * step, 18 * step);
    }

    @Test
    void aReservationThatWouldWaitLongerThanAllowedFailsAtOnceAndSpendsNothing() {
        RateLimitPolicy partner = policy("partner", 2, 1, RateLimitAlgorithm.STRICT_WINDOW);
        String p = partition("a");
        long step = SECOND / 8;
        acquire(p, waiting(partner, 5 * SECOND), 1);
        acquire(p, waiting(partner, 5 * SECOND), 1);
        assertThat(acquire(p, waiting(partner, 5 * SECOND), 1).waitNanos()).isEqualTo(9 * step);

        RateLimitDecision impatient = acquire(p, waiting(partner, SECOND), 1);

        assertThat(impatient.allowed()).isFalse();
        assertThat(impatient.outcome(0).state()).isEqualTo(State.REFUSED);
        assertThat(impatient.outcome(0).retryAfterNanos()).as("the instant its permit would exist").isEqualTo(9 * step);
        assertThat(impatient.waitNanos()).isZero();
        // it took nothing: the next patient caller still gets the second permit of step 9
        assertThat(acquire(p, waiting(partner, 5 * SECOND), 1).waitNanos()).isEqualTo(9 * step);
        assertThat(acquire(p, waiting(partner, 5 * SECOND), 1).waitNanos()).isEqualTo(18 * step);
    }

    @Test
    void whileCallersWaitNobodyGoesFirstAndARefusalSaysWhenTheQueueHasPassed() {
        RateLimitPolicy partner = policy("partner", 2, 1, RateLimitAlgorithm.STRICT_WINDOW);
        String p = partition("a");
        long step = SECOND / 8;
        acquire(p, waiting(partner, 5 * SECOND), 1);
        acquire(p, waiting(partner, 5 * SECOND), 1);
        acquire(p, waiting(partner, 5 * SECOND), 1); // goes in step 9
        clock.set(t0 + 9 * step + step / 2); // the first two permits have returned, one is reserved in this step

        Outcome now = one(p, partner);
        assertThat(now.allowed()).as("one permit of step 9 is left").isTrue();
        clock.set(t0 + 10 * step);
        RateLimitDecision queued = acquire(p, waiting(partner, 5 * SECOND), 1);
        assertThat(queued.waitNanos()).isEqualTo(8 * step); // step 18: behind the two of step 9
        Outcome refused = one(p, partner);
        assertThat(refused.allowed()).as("a caller that does not wait does not jump the queue").isFalse();
        assertThat(refused.retryAfterNanos()).isEqualTo(8 * step);
        assertThat(refused.remaining()).isZero();
    }

    @Test
    void aReservationGivenBackFreesItsPermitsForTheNextCaller() {
        RateLimitPolicy partner = policy("partner", 2, 1, RateLimitAlgorithm.STRICT_WINDOW);
        String p = partition("a");
        long step = SECOND / 8;
        acquire(p, waiting(partner, 5 * SECOND), 1);
        acquire(p, waiting(partner, 5 * SECOND), 1);
        acquire(p, waiting(partner, 5 * SECOND), 1);
        RateLimitDecision interrupted = acquire(p, waiting(partner, 5 * SECOND), 1);
        assertThat(interrupted.waitNanos()).isEqualTo(9 * step);

        release(interrupted);

        assertThat(acquire(p, waiting(partner, 5 * SECOND), 1).waitNanos()).as("the freed permit of step 9")
                .isEqualTo(9 * step);
        assertThat(acquire(p, waiting(partner, 5 * SECOND), 1).waitNanos()).isEqualTo(18 * step);
    }

    @Test
    void countWhoseReservationsAreAllGivenBackServesAtOnceAgain() {
        RateLimitPolicy partner = policy("partner", 1, 1, RateLimitAlgorithm.STRICT_WINDOW);
        String p = partition("a");
        long step = SECOND / 8;
        acquire(p, waiting(partner, 5 * SECOND), 1);
        RateLimitDecision later = acquire(p, waiting(partner, 5 * SECOND), 1);
        release(later);
        clock.set(t0 + 9 * step);

        assertThat(acquire(p, waiting(partner, 5 * SECOND), 1).waitNanos()).isZero();
    }

    /** Found by the Redis store's comparison with the in-process store: a ring sum that wrapped to room. */
    @Test
    void aReservedStepThatAHugeChargeFilledStaysInDebtWhenTheClockReachesIt() {
        RateLimitPolicy partner = policy("partner", 2, 1);
        String p = partition("a");
        long step = SECOND / 8;
        one(p, partner);
        clock.set(t0 + 4 * step);
        one(p, partner);
        assertThat(acquire(p, waiting(partner, 5 * SECOND), 1).waitNanos()).isEqualTo(4 * step); // step 8
        RateLimitRequest charge = request(List.of(new Item(partner, null, 1, Kind.CHARGE)));
        assertThat(acquire(p, charge, Integer.MAX_VALUE).allowed()).isTrue(); // behind the reservation, in step 8
        clock.set(t0 + 8 * step);

        Outcome refused = one(p, partner);

        assertThat(refused.allowed()).as("the count is in debt, not empty").isFalse();
        assertThat(refused.retryAfterNanos()).isEqualTo(8 * step);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(RateLimitAlgorithm.class)
    void grantedInstantsNeverPutMoreThanTheAlgorithmsPromiseInAnySpanOfOneWindow(RateLimitAlgorithm algorithm) {
        RateLimitPolicy partner = policy("partner", 4, 1, algorithm);
        String p = partition("a");
        long tick = Math.max(clockResolutionNanos(), 40_000_000L); // callers every 40 ms, three at a time
        List<Long> goes = new ArrayList<>();
        for (long t = 0; t < 4 * SECOND; t += tick) {
            clock.set(t0 + t);
            for (int i = 0; i < 3; i++) {
                RateLimitDecision d = acquire(p, waiting(partner, 3 * SECOND), 1);
                if (d.allowed()) {
                    goes.add(t + d.waitNanos());
                }
            }
        }
        for (int i = 1; i < goes.size(); i++) {
            assertThat(goes.get(i)).as("granted in the order asked").isGreaterThanOrEqualTo(goes.get(i - 1));
        }
        int densest = 0;
        for (int i = 0; i < goes.size(); i++) {
            int j = i;
            while (j < goes.size() && goes.get(j) - goes.get(i) < SECOND) {
                j++;
            }
            densest = Math.max(densest, j - i);
        }
        int promise = algorithm == RateLimitAlgorithm.STRICT_WINDOW ? 4 : 7;
        assertThat(densest).as("most calls going in any 1 s span, %s", algorithm).isLessThanOrEqualTo(promise);
        assertThat(goes).as("the queue kept the partner busy").hasSizeGreaterThan(12);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(RateLimitAlgorithm.class)
    void aCallOfSeveralLimitsGoesAtTheLatestGrantAndEachLimitCountsItThere(RateLimitAlgorithm algorithm) {
        RateLimitPolicy slow = policy("slow", 1, 8, algorithm); // one a window of 8 s
        RateLimitPolicy fast = policy("fast", 1, 1, algorithm);
        String p = partition("a");
        RateLimitRequest both = request(List.of(Item.waiting(slow, 20 * SECOND), Item.waiting(fast, 20 * SECOND)));
        acquire(p, both, 1);

        RateLimitDecision second = acquire(p, both, 1);

        assertThat(second.allowed()).isTrue();
        long wait = second.waitNanos();
        assertThat(wait).as("the slow limit's permit").isGreaterThan(7 * SECOND);
        assertThat(second.outcome(0).waitNanos()).isEqualTo(wait);
        assertThat(second.outcome(1).waitNanos()).isEqualTo(wait);
        // the fast limit's permit is taken where the call goes, so a fast-only caller before then waits behind it
        RateLimitDecision fastOnly = acquire(p, waiting(fast, 20 * SECOND), 1);
        assertThat(fastOnly.waitNanos()).isGreaterThanOrEqualTo(wait);
    }

    @Test
    void aCountPerApplicationIsOneCountForEveryPartition() {
        RateLimitPolicy partner = policy("partner", 2, 60);
        Item perApplication = new Item(partner, null, 1, Kind.ACQUIRE, 0, true);
        RateLimitRequest request = request(List.of(perApplication));

        assertThat(acquire(partition("alice"), request, 1).outcome(0).remaining()).isEqualTo(1);
        assertThat(acquire(partition("bob"), request, 1).outcome(0).remaining()).isZero();
        assertThat(acquire(partition("carol"), request, 1).allowed()).isFalse();
        assertThat(acquire(partition("dave"), policy("partner-callers", 2, 60)).allowed()).as("per caller: apart")
                .isTrue();
    }

    // ---------------------------------------------------------------- token bucket

    @Test
    void fullBucketServesItsLimitAtOnceThenOnePermitEveryInterval() {
        RateLimitPolicy limit = policy("bucket", 4, 2, RateLimitAlgorithm.TOKEN_BUCKET); // one per 500 ms
        String p = partition("a");
        long interval = 500_000_000L;

        assertBucket(one(p, limit), limit, true, 3, interval);
        assertBucket(one(p, limit), limit, true, 2, 2 * interval);
        assertBucket(one(p, limit), limit, true, 1, 3 * interval);
        assertBucket(one(p, limit), limit, true, 0, 4 * interval);
        Outcome refused = one(p, limit);
        assertBucket(refused, limit, false, 0, 4 * interval);
        assertThat(refused.retryAfterNanos()).isEqualTo(interval);

        clock.set(t0 + interval - clockResolutionNanos());
        assertThat(one(p, limit).retryAfterNanos()).isEqualTo(clockResolutionNanos());
        clock.set(t0 + interval);
        assertBucket(one(p, limit), limit, true, 0, 4 * interval);
        clock.set(t0 + 5 * interval + 100);
        assertBucket(one(p, limit), limit, true, 3, interval);
    }

    @Test
    void bucketIntervalIsTheWindowOverTheLimitRoundedUpToWholeMicroseconds() {
        RateLimitPolicy limit = policy("thirds", 3, 1, RateLimitAlgorithm.TOKEN_BUCKET); // 333 333.33 us
        String p = partition("a");
        long interval = 333_334_000L;

        assertBucket(one(p, limit), limit, true, 2, interval);
        one(p, limit);
        one(p, limit);
        assertThat(one(p, limit).retryAfterNanos()).isEqualTo(interval);
        clock.set(t0 + 3 * interval);
        assertBucket(one(p, limit), limit, true, 2, interval);
    }

    @Test
    void fullBucketTakesTheSizeOfTheRequestThatFindsItFull() {
        RateLimitPolicy small = policy("bucket", 2, 1, RateLimitAlgorithm.TOKEN_BUCKET);
        RateLimitPolicy big = policy("bucket", 10, 1, RateLimitAlgorithm.TOKEN_BUCKET);
        String p = partition("a");
        one(p, small);
        assertBucket(one(p, big), big, true, 0, SECOND); // sized by small: 2 per second, both spent
        assertThat(acquire(p, big).allowed()).isFalse();
        clock.set(t0 + SECOND); // full again: holds nothing

        assertBucket(one(p, big), big, true, 9, 100_000_000L);
    }

    // ---------------------------------------------------------------- cost and debt

    @ParameterizedTest(name = "{0}")
    @EnumSource(RateLimitAlgorithm.class)
    void aRequestOfCostNSpendsNPermitsAllOrNothing(RateLimitAlgorithm algorithm) {
        RateLimitPolicy limit = policy("reports", 10, 60, algorithm);
        String p = partition("a");
        RateLimitRequest report = request(List.of(new Item(limit, null, 4, Kind.ACQUIRE)));

        assertThat(acquire(p, report, 1).outcome(0).remaining()).isEqualTo(6);
        assertThat(acquire(p, report, 1).outcome(0).remaining()).isEqualTo(2);
        RateLimitDecision third = acquire(p, report, 1);
        assertThat(third.allowed()).isFalse();
        assertThat(third.outcome(0).remaining()).isZero();
        assertThat(one(p, limit).remaining()).as("the third spent nothing: 2 were left").isEqualTo(1);
    }

    @Test
    void theMultipleScalesEveryLimitsCost() {
        RateLimitPolicy items = policy("items", 50, 60);
        RateLimitPolicy module = policy("module", 100, 60);
        String p = partition("a");
        RateLimitRequest request = request(List.of(new Item(items, null, 1, Kind.ACQUIRE),
                new Item(module, null, 2, Kind.ACQUIRE)));

        RateLimitDecision decision = acquire(p, request, 20);

        assertThat(decision.permits(0)).isEqualTo(20);
        assertThat(decision.permits(1)).isEqualTo(40);
        assertThat(decision.outcome(0).remaining()).isEqualTo(30);
        assertThat(decision.outcome(1).remaining()).isEqualTo(60);
        assertThat(acquire(p, request, 31).allowed()).isFalse();
        assertThat(acquire(p, request, 30).allowed()).isTrue();
    }

    @Test
    void windowRefusalOfNPermitsWaitsUntilEnoughHaveReturned() {
        RateLimitPolicy limit = policy("bulk", 6, 8); // steps of 1 s
        String p = partition("a");
        RateLimitRequest two = request(List.of(new Item(limit, null, 2, Kind.ACQUIRE)));
        acquire(p, two, 1); // step 0: 2
        clock.set(t0 + 2 * SECOND);
        acquire(p, two, 1); // step 2: 2
        clock.set(t0 + 5 * SECOND);
        acquire(p, two, 1); // step 5: 2; full
        RateLimitRequest four = request(List.of(new Item(limit, null, 4, Kind.ACQUIRE)));

        Outcome refused = acquire(p, four, 1).outcome(0);

        assertThat(refused.state()).isEqualTo(State.REFUSED);
        assertThat(refused.resetNanos()).as("the oldest permits return at 8 s").isEqualTo(3 * SECOND);
        assertThat(refused.retryAfterNanos()).as("four permits are back at 10 s").isEqualTo(5 * SECOND);
        clock.set(t0 + 10 * SECOND - clockResolutionNanos());
        assertThat(acquire(p, four, 1).allowed()).isFalse();
        clock.set(t0 + 10 * SECOND);
        assertThat(acquire(p, four, 1).allowed()).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(RateLimitAlgorithm.class)
    void aChargeSpendsPastTheLimitAndTheCountRefusesUntilTheDebtHasReturned(RateLimitAlgorithm algorithm) {
        RateLimitPolicy tokens = policy("tokens", 10, 8, algorithm);
        String p = partition("a");
        RateLimitRequest charge = request(List.of(new Item(tokens, null, 1, Kind.CHARGE)));

        RateLimitDecision charged = acquire(p, charge, 25);

        assertThat(charged.allowed()).isTrue();
        assertThat(charged.outcome(0).state()).isEqualTo(State.SPENT);
        assertThat(charged.outcome(0).remaining()).as("in debt").isZero();
        Outcome refused = one(p, tokens);
        assertThat(refused.state()).isEqualTo(State.REFUSED);
        long retry = refused.retryAfterNanos();
        assertThat(retry).as("the debt returns first").isPositive();
        assertThat(acquire(p, charge, 1).allowed()).as("a charge is never refused").isTrue();
        clock.set(t0 + 30 * SECOND);
        assertThat(one(p, tokens).allowed()).isTrue();
    }

    @Test
    void releaseGivesBackNPermitsButNeverACharge() {
        RateLimitPolicy limit = policy("items", 10, 60);
        String p = partition("a");
        RateLimitDecision five = acquire(p, request(limit), 5);
        RateLimitDecision charged = acquire(p, request(List.of(new Item(limit, null, 1, Kind.CHARGE))), 3);
        assertThat(charged.outcome(0).remaining()).isEqualTo(2);

        release(five);
        release(charged);

        assertThat(one(p, limit).remaining()).isEqualTo(6);
    }

    /**
     * A store that slices gives back part of a decision, each limit its cost times the part, to where it was spent;
     * the rest stays spent and may be given back later (docs/stores.md, "Exact or sliced"). A store that does not slice
     * gives back a whole decision through the part method, and refuses a part.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(RateLimitAlgorithm.class)
    void aStoreThatSlicesGivesBackPartOfADecision(RateLimitAlgorithm algorithm) throws Exception {
        RateLimitPolicy limit = policy("slice", 100, 60, algorithm);
        RateLimitPolicy other = policy("slice-other", 100, 60, algorithm);
        String p = partition("a");
        RateLimitRequest both = request(List.of(new Item(limit, null, 2, Kind.ACQUIRE), new Item(other, null, 1,
                Kind.ACQUIRE)));
        RateLimitDecision slice = acquire(p, both, 10); // 20 of one, 10 of the other
        assertThat(slice.outcome(0).remaining()).isEqualTo(80);
        if (!store.slices()) {
            assertThat(store.release(slice, 4).toCompletableFuture()).failsWithin(10, TimeUnit.SECONDS);
            store.release(slice, 10).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(one(p, limit).remaining()).as("the whole decision back").isEqualTo(99);
            return;
        }

        store.release(slice, 4).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(one(p, limit).remaining()).as("8 of 20 back, then one spent").isEqualTo(87);
        assertThat(one(p, other).remaining()).as("4 of 10 back, then one spent").isEqualTo(93);

        store.release(slice, 6).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(one(p, limit).remaining()).as("the rest back").isEqualTo(98);
        assertThat(one(p, other).remaining()).isEqualTo(98);
    }

    @Test
    void bucketGiveBackOfNPermitsMovesItsInstantBackButNeverBeyondFull() {
        RateLimitPolicy limit = policy("bucket", 10, 10, RateLimitAlgorithm.TOKEN_BUCKET); // one per second
        String p = partition("a");
        one(p, limit);
        RateLimitDecision three = acquire(p, request(limit), 3);
        assertThat(three.outcome(0).remaining()).isEqualTo(6);

        release(three);
        assertBucket(one(p, limit), limit, true, 8, 2 * SECOND);
        clock.set(t0 + 10 * SECOND);
        RateLimitDecision late = acquire(p, request(limit), 2);
        clock.set(t0 + 30 * SECOND); // everything has returned
        release(late);
        assertBucket(one(p, limit), limit, true, 9, SECOND);
    }

    // ---------------------------------------------------------------- only failures, per address, per argument

    @ParameterizedTest(name = "{0}")
    @EnumSource(RateLimitAlgorithm.class)
    void permitsOfSuccessesGivenBackLeaveOnlyFailuresAndCallsInFlightInTheCount(RateLimitAlgorithm algorithm) {
        RateLimitPolicy login = policy("login", 5, 900, algorithm);
        RateLimitRequest perAddress = requestPer(login, RateLimitPer.ADDRESS); // as the engine binds such a limit
        String p = partition("addr:192.0.2.1");
        List<RateLimitDecision> admitted = new ArrayList<>();
        RateLimitDecision refused = null;
        for (int i = 0; i < 20; i++) {
            RateLimitDecision d = acquire(p, perAddress, 1);
            if (d.allowed()) {
                admitted.add(d);
            } else {
                refused = d;
            }
        }
        assertThat(admitted).as("twenty calls in flight: five taken on admission").hasSize(5);
        assertThat(inspect(p, perAddress).remaining()).as("the store's count, in flight").isZero();

        for (int i = 0; i < 3; i++) {
            release(admitted.get(i)); // three succeeded: their part that counts only failures is given back
        }
        release(refused); // a refused call spent nothing: nothing comes back

        assertThat(inspect(p, perAddress).remaining()).as("the store's count: two failures held").isEqualTo(3);
        assertThat(acquire(p, perAddress, 1).outcome(0).remaining()).as("two failures and this call").isEqualTo(2);
        assertThat(acquire(p, perAddress, 1).outcome(0).remaining()).isEqualTo(1);
        assertThat(acquire(p, perAddress, 1).outcome(0).remaining()).isZero();
        assertThat(acquire(p, perAddress, 1).allowed()).isFalse();
        assertThat(inspect(p, perAddress).remaining()).isZero();
    }

    @Test
    void givingBackOnePartOfACallLeavesItsOtherPartsSpent() {
        // the parts of the example's log-in, each in a partition of its own and decided by a call of its own, as the
        // engine decides them; only the part of the account is given back here
        RateLimitPolicy caller = policy("caller", 20, 60);
        RateLimitPolicy address = policy("address", 5, 900, RateLimitAlgorithm.STRICT_WINDOW);
        RateLimitPolicy account = policy("account", 10, 3600);
        RateLimitRequest byCaller = request(caller);
        RateLimitRequest byAddress = requestPer(address, RateLimitPer.ADDRESS);
        RateLimitRequest byAccount = requestPer(account, RateLimitPer.ARGUMENT);
        String anonymous = partition("anonymous");
        String addressPartition = partition("addr:192.0.2.1");
        String accountPartition = partition("arg:ZLsAxOmIpTUF96wVxfqzuQ");
        acquire(anonymous, byCaller, 1);
        acquire(addressPartition, byAddress, 1);
        RateLimitDecision accountPart = acquire(accountPartition, byAccount, 1);

        release(accountPart);

        assertThat(inspect(accountPartition, byAccount).remaining()).as("the part given back").isEqualTo(10);
        assertThat(inspect(addressPartition, byAddress).remaining()).as("the address's part stays spent").isEqualTo(4);
        assertThat(inspect(anonymous, byCaller).remaining()).as("the caller's part stays spent").isEqualTo(19);
        assertThat(acquire(addressPartition, byAddress, 1).outcome(0).remaining()).isEqualTo(3);
        assertThat(acquire(accountPartition, byAccount, 1).outcome(0).remaining()).isEqualTo(9);
    }

    // ---------------------------------------------------------------- shadow

    @Test
    void aShadowLimitSpendsWhenItCanAndNeverRefusesTheRequest() {
        RateLimitPolicy shadow = policy("shadow", 1, 60);
        RateLimitPolicy enforced = policy("enforced", 5, 60);
        String p = partition("a");
        RateLimitRequest request = request(List.of(new Item(shadow, null, 1, Kind.SHADOW), new Item(enforced)));

        RateLimitDecision first = acquire(p, request, 1);
        RateLimitDecision second = acquire(p, request, 1);

        assertThat(first.allowed()).isTrue();
        assertThat(first.outcome(0).state()).isEqualTo(State.SPENT);
        assertThat(second.allowed()).isTrue();
        assertThat(second.outcome(0).state()).as("would have refused").isEqualTo(State.REFUSED);
        assertThat(second.outcome(1).state()).isEqualTo(State.SPENT);
        assertThat(second.outcome(1).remaining()).isEqualTo(3);
        assertThat(second.refused()).isEmpty();
    }

    @Test
    void anEnforcedRefusalSpendsNothingFromAShadowLimit() {
        RateLimitPolicy shadow = policy("shadow", 5, 60);
        RateLimitPolicy enforced = policy("enforced", 1, 60);
        String p = partition("a");
        RateLimitRequest request = request(List.of(new Item(shadow, null, 1, Kind.SHADOW), new Item(enforced)));
        acquire(p, request, 1);

        RateLimitDecision refused = acquire(p, request, 1);

        assertThat(refused.allowed()).isFalse();
        assertThat(refused.outcome(0).state()).isEqualTo(State.UNSPENT);
        assertThat(one(p, shadow).remaining()).isEqualTo(3);
    }

    // ---------------------------------------------------------------- plans

    @Test
    void aPlansCountsAreApartFromTheCountsOfCallersInNoPlan() {
        RateLimitPolicy limit = policy("default", 2, 60);
        String p = partition("bob");
        RateLimitRequest none = request(limit);
        RateLimitRequest gold = request(List.of(new Item(policy("default", 10, 60), "gold", 1, Kind.ACQUIRE)));
        acquire(p, none, 1);
        acquire(p, none, 1);
        assertThat(acquire(p, none, 1).allowed()).isFalse();

        RateLimitDecision asGold = acquire(p, gold, 1);

        assertThat(asGold.allowed()).isTrue();
        assertThat(asGold.outcome(0).remaining()).isEqualTo(9);
    }

    // ---------------------------------------------------------------- rounding

    @Test
    void waitOfOneNanosecondIsAnnouncedAsOneSecondNeverZero() {
        RateLimitPolicy limit = policy("round", 1, 8);
        one(partition("a"), limit);
        clock.set(t0 + 8 * SECOND - clockResolutionNanos());

        RateLimitDecision refused = acquire(partition("a"), limit);

        assertOutcome(refused.outcome(0), limit, false, 0, clockResolutionNanos());
        assertThat(refused.outcome(0).resetSeconds()).isEqualTo(1);
        assertThat(refused.retryAfterSeconds()).isEqualTo(1);
    }

    @Test
    void waitOfExactlyOneSecondIsAnnouncedAsOneSecond() {
        RateLimitPolicy limit = policy("round", 1, 8);
        one(partition("a"), limit);
        clock.set(t0 + 7 * SECOND);

        RateLimitDecision refused = acquire(partition("a"), limit);

        assertOutcome(refused.outcome(0), limit, false, 0, SECOND);
        assertThat(refused.retryAfterSeconds()).isEqualTo(1);
    }

    @Test
    void waitOfOneSecondAndOneNanosecondIsAnnouncedAsTwoSeconds() {
        RateLimitPolicy limit = policy("round", 1, 8);
        one(partition("a"), limit);
        clock.set(t0 + 7 * SECOND - clockResolutionNanos());

        RateLimitDecision refused = acquire(partition("a"), limit);

        assertOutcome(refused.outcome(0), limit, false, 0, SECOND + clockResolutionNanos());
        assertThat(refused.outcome(0).resetSeconds()).isEqualTo(2);
        assertThat(refused.retryAfterSeconds()).isEqualTo(2);
    }

    @Test
    void resetOfAnAllowedRequestIsRoundedUpToWholeSeconds() {
        RateLimitPolicy limit = policy("round", 2, 8);
        one(partition("a"), limit);
        clock.set(t0 + 6_500_000_000L);

        Outcome second = one(partition("a"), limit);

        assertOutcome(second, limit, true, 0, 1_500_000_000L);
        assertThat(second.resetSeconds()).isEqualTo(2);
    }

    // ---------------------------------------------------------------- live values and the admin API

    /** Reads a count without spending, synchronously. */
    protected CountState inspect(String partition, RateLimitRequest request) {
        try {
            return store.inspect(partition, request).toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while reading a count", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("the store did not read the count: " + e, e);
        }
    }

    /** Starts a count afresh, synchronously. */
    protected void restart(String partition, RateLimitRequest request) {
        try {
            store.restart(partition, request).toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while restarting a count", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("the store did not restart the count: " + e, e);
        }
    }

    /**
     * A request of one enforced limit of cost 1 carrying a sizing tag, as a configuration's binding makes it (the
     * same name bound again for another algorithm, as live values do).
     */
    protected final RateLimitRequest tagged(RateLimitPolicy policy, int tag) {
        Bound b = bound.computeIfAbsent(policy.name() + "#" + policy.algorithm(), k -> {
            CountKey key = new CountKey(policy.name(), null, policy.algorithm());
            return new Bound(key, store.bind(key));
        });
        return RateLimitRequest.builder().add(b.handle, b.key, policy, 1, Kind.ACQUIRE).tag(tag).build();
    }

    /**
     * A request of one enforced limit of cost 1 whose count is per {@code per}: as the engine binds a limit per address
     * or per argument (the store is told whose count it is), each (name, per) bound once per test.
     */
    protected final RateLimitRequest requestPer(RateLimitPolicy policy, RateLimitPer per) {
        Bound b = bound.computeIfAbsent(policy.name() + "~" + per, k -> {
            CountKey key = new CountKey(policy.name(), null, policy.algorithm(), per);
            return new Bound(key, store.bind(key));
        });
        return RateLimitRequest.builder().add(b.handle, b.key, policy, 1, Kind.ACQUIRE).build();
    }

    private Outcome tagged(String partition, RateLimitPolicy policy, int tag) {
        return acquire(partition, tagged(policy, tag), 1).outcome(0);
    }

    @ParameterizedTest
    @EnumSource(value = RateLimitAlgorithm.class, names = {"SLIDING_WINDOW", "STRICT_WINDOW"})
    void aRaisedPermitLimitOfANewTagGivesRoomAtOnceAndKeepsThePermitsSpent(RateLimitAlgorithm algorithm) {
        String p = partition("a");
        RateLimitPolicy three = policy("live", 3, 60, algorithm);
        RateLimitPolicy five = policy("live", 5, 60, algorithm);
        for (int i = 0; i < 3; i++) {
            assertThat(tagged(p, three, 1).spent()).isTrue();
        }
        assertThat(tagged(p, three, 1).spent()).isFalse();

        Outcome raised = tagged(p, five, 2);
        assertThat(raised.spent()).isTrue();
        assertThat(raised.remaining()).isEqualTo(1);
        assertThat(tagged(p, five, 2).remaining()).isEqualTo(0);
        assertThat(tagged(p, five, 2).spent()).isFalse();
    }

    @Test
    void aLoweredPermitLimitOfANewTagRefusesUntilEnoughPermitsHaveReturned() {
        String p = partition("a");
        RateLimitPolicy five = policy("live", 5, 60);
        RateLimitPolicy two = policy("live", 2, 60);
        for (int i = 0; i < 4; i++) {
            tagged(p, five, 1);
        }
        clock.advanceSeconds(10);
        Outcome lowered = tagged(p, two, 2);
        assertThat(lowered.spent()).isFalse();
        assertThat(lowered.retryAfterNanos()).isEqualTo(50 * SECOND); // all four return together, one window on
        clock.advanceSeconds(50);
        assertThat(tagged(p, two, 2).remaining()).isEqualTo(1);
    }

    @Test
    void withinOneTagACountKeepsTheSizeOfTheRequestThatCreatedIt() {
        String p = partition("a");
        tagged(p, policy("live", 2, 60), 7);
        Outcome bigger = tagged(p, policy("live", 5, 60), 7);
        assertThat(bigger.spent()).isTrue();
        assertThat(bigger.remaining()).isEqualTo(0); // sized 2 by its creator: a count keeps the size it was made with
    }

    @ParameterizedTest
    @CsvSource({"SLIDING_WINDOW, 30, SLIDING_WINDOW", "SLIDING_WINDOW, 60, STRICT_WINDOW",
            "SLIDING_WINDOW, 60, TOKEN_BUCKET", "TOKEN_BUCKET, 30, TOKEN_BUCKET", "TOKEN_BUCKET, 60, STRICT_WINDOW"})
    void anotherWindowOrAlgorithmOfANewTagStartsTheCountAfresh(RateLimitAlgorithm from, int window,
                                                                RateLimitAlgorithm to) {
        String p = partition("a");
        for (int i = 0; i < 3; i++) {
            tagged(p, policy("live", 3, 60, from), 1);
        }
        Outcome afresh = tagged(p, policy("live", 3, window, to), 2);
        assertThat(afresh.spent()).isTrue();
        assertThat(afresh.remaining()).isEqualTo(2);
    }

    @Test
    void aBucketGivenAnotherLimitOverTheSameWindowKeepsItsShareOut() {
        String p = partition("a");
        RateLimitPolicy four = policy("live", 4, 60, RateLimitAlgorithm.TOKEN_BUCKET);   // a permit every 15 s
        RateLimitPolicy five = policy("live", 5, 60, RateLimitAlgorithm.TOKEN_BUCKET);   // every 12 s
        for (int i = 0; i < 4; i++) {
            tagged(p, four, 1);
        }
        CountState state = inspect(p, tagged(five, 2)); // 60 s out of 60 becomes 48 s of 60: one permit left
        assertThat(state.remaining()).isEqualTo(1);
        assertThat(state.resetNanos()).isEqualTo(48 * SECOND);
        assertThat(tagged(p, five, 2).remaining()).isEqualTo(0);
    }

    @ParameterizedTest
    @EnumSource(RateLimitAlgorithm.class)
    void inspectReportsPermitsLeftAndResetAndSpendsNothing(RateLimitAlgorithm algorithm) {
        String p = partition("a");
        RateLimitPolicy three = policy("seen", 3, 60, algorithm);
        RateLimitRequest request = tagged(three, 0);
        acquire(p, request, 2);
        clock.advanceSeconds(1);

        CountState first = inspect(p, request);
        CountState second = inspect(p, request);
        assertThat(first).isEqualTo(second);
        assertThat(first.remaining()).isEqualTo(1);
        assertThat(first.debt()).isZero();
        assertThat(first.inDebt()).isFalse();
        assertThat(first.resetNanos()).isEqualTo(algorithm == RateLimitAlgorithm.TOKEN_BUCKET ? 39 * SECOND
                : algorithm == RateLimitAlgorithm.STRICT_WINDOW ? 66_500_000_000L : 59 * SECOND);
        assertThat(acquire(p, request, 1).outcome(0).remaining()).isZero();
    }

    @Test
    void inspectOfACountNobodyMadeIsUntouched() {
        RateLimitPolicy three = policy("seen", 3, 60);
        CountState state = inspect(partition("nobody"), tagged(three, 0));
        assertThat(state).isEqualTo(CountState.untouched(three));
        assertThat(state.remaining()).isEqualTo(3);
        assertThat(state.resetNanos()).isEqualTo(-1);
    }

    @ParameterizedTest
    @EnumSource(RateLimitAlgorithm.class)
    void inspectReportsDebtAfterACharge(RateLimitAlgorithm algorithm) {
        String p = partition("a");
        RateLimitPolicy three = policy("owed", 3, 60, algorithm);
        Bound b = bound.computeIfAbsent("owed#" + algorithm, k -> {
            CountKey key = new CountKey("owed", null, algorithm);
            return new Bound(key, store.bind(key));
        });
        acquire(p, RateLimitRequest.builder().add(b.handle, b.key, three, 1, Kind.CHARGE).build(), 5);

        CountState state = inspect(p, tagged(three, 0));
        assertThat(state.debt()).isEqualTo(2);
        assertThat(state.inDebt()).isTrue();
        assertThat(state.remaining()).isZero();
    }

    @ParameterizedTest
    @EnumSource(RateLimitAlgorithm.class)
    void restartGivesTheCallerEveryPermitBackAndTouchesNoOtherPartition(RateLimitAlgorithm algorithm) {
        String p = partition("a");
        String other = partition("b");
        RateLimitRequest request = tagged(policy("reset", 2, 60, algorithm), 0);
        acquire(p, request, 2);
        acquire(other, request, 2);
        assertThat(acquire(p, request, 1).allowed()).isFalse();

        restart(p, request);

        assertThat(inspect(p, request).remaining()).isEqualTo(2);
        RateLimitDecision again = acquire(p, request, 1);
        assertThat(again.allowed()).isTrue();
        assertThat(again.outcome(0).remaining()).isEqualTo(1);
        assertThat(acquire(other, request, 1).allowed()).isFalse();
    }

    @Test
    void restartOfACountNobodyMadeChangesNothing() {
        RateLimitRequest request = tagged(policy("reset", 2, 60), 0);
        restart(partition("nobody"), request);
        assertThat(inspect(partition("nobody"), request).remaining()).isEqualTo(2);
    }

    // ---------------------------------------------------------------- one name, two sizes

    @Test
    void countTakesItsSizeFromThePolicyThatCreatedItWhileTheOutcomeNamesTheCallersPolicy() {
        RateLimitPolicy big = policy("shared", 5, 10);
        RateLimitPolicy small = policy("shared", 2, 60);
        String p = partition("a");

        assertOutcome(one(p, big), big, true, 4, 10 * SECOND);
        Outcome bySmall = one(p, small);

        assertThat(bySmall.policy()).isSameAs(small);
        assertOutcome(bySmall, small, true, 3, 10 * SECOND);
        assertOutcome(one(p, small), small, true, 2, 10 * SECOND);
        assertOutcome(one(p, small), small, true, 1, 10 * SECOND);
        assertOutcome(one(p, small), small, true, 0, 10 * SECOND);
        clock.advanceSeconds(4);
        RateLimitDecision refused = acquire(p, small);
        assertOutcome(refused.outcome(0), small, false, 0, 6 * SECOND);
        assertThat(refused.retryAfterSeconds()).isEqualTo(6);
    }

    @Test
    void emptiedCountTakesItsSizeFromTheRequestThatFindsItEmpty() {
        RateLimitPolicy big = policy("shared", 5, 10);
        RateLimitPolicy small = policy("shared", 2, 60);
        String p = partition("a");
        one(p, big);
        one(p, big);
        clock.advanceSeconds(10); // everything spent by the big limit has returned

        assertOutcome(one(p, small), small, true, 1, 60 * SECOND);
        clock.advanceSeconds(1);
        assertOutcome(one(p, big), big, true, 0, 59 * SECOND);
        assertOutcome(one(p, big), big, false, 0, 59 * SECOND);
    }

    // ---------------------------------------------------------------- all or nothing

    @Test
    void refusedRequestSpendsNothingFromOtherLimits() {
        RateLimitPolicy strict = policy("strict", 1, 60);
        RateLimitPolicy roomy = policy("roomy", 5, 60);
        String p = partition("a");

        RateLimitDecision first = acquire(p, strict, roomy);
        assertThat(first.allowed()).isTrue();
        assertOutcome(first.outcome(0), strict, true, 0, 60 * SECOND);
        assertOutcome(first.outcome(1), roomy, true, 4, 60 * SECOND);
        assertThat(first.outcomes()).allMatch(Outcome::spent);

        clock.advanceSeconds(1);
        for (int i = 0; i < 3; i++) {
            RateLimitDecision refused = acquire(p, strict, roomy);
            assertThat(refused.allowed()).isFalse();
            assertThat(refused.refused()).extracting(Outcome::policy).containsExactly(strict);
            assertOutcome(refused.outcome(0), strict, false, 0, 59 * SECOND);
            assertThat(refused.outcome(1).policy()).isSameAs(roomy);
            assertThat(refused.outcome(1).state()).isEqualTo(State.UNSPENT);
            assertThat(refused.outcome(1).remaining()).isEqualTo(4);
        }
        RateLimitDecision reversed = acquire(p, roomy, strict);
        assertThat(reversed.allowed()).isFalse();
        assertThat(reversed.outcomes()).extracting(Outcome::policy).containsExactly(roomy, strict);
        assertThat(reversed.outcome(0).remaining()).isEqualTo(4);

        assertOutcome(one(p, roomy), roomy, true, 3, 59 * SECOND);
    }

    @Test
    void aRefusalByOneAlgorithmSpendsNothingFromLimitsOfTheOthers() {
        RateLimitPolicy sliding = policy("sliding", 5, 60);
        RateLimitPolicy strict = policy("strict", 5, 60, RateLimitAlgorithm.STRICT_WINDOW);
        RateLimitPolicy bucket = policy("bucket", 1, 60, RateLimitAlgorithm.TOKEN_BUCKET);
        String p = partition("a");
        assertThat(acquire(p, sliding, strict, bucket).allowed()).isTrue();

        RateLimitDecision refused = acquire(p, sliding, strict, bucket);

        assertThat(refused.allowed()).isFalse();
        assertThat(refused.refused()).extracting(Outcome::policy).containsExactly(bucket);
        assertThat(one(p, sliding).remaining()).isEqualTo(3);
        assertThat(one(p, strict).remaining()).isEqualTo(3);
        RateLimitDecision byWindow = acquire(p, request(List.of(new Item(policy("strict", 5, 60,
                RateLimitAlgorithm.STRICT_WINDOW), null, 4, Kind.ACQUIRE))), 1);
        assertThat(byWindow.allowed()).as("3 left, 4 asked").isFalse();
    }

    @Test
    void outcomesFollowTheOrderOfThePoliciesGiven() {
        RateLimitPolicy a = policy("a", 3, 60);
        RateLimitPolicy b = policy("b", 4, 10);
        RateLimitPolicy c = policy("c", 5, 1);

        RateLimitDecision decision = acquire(partition("x"), c, a, b);

        assertThat(decision.allowed()).isTrue();
        assertOutcome(decision.outcome(0), c, true, 4, SECOND);
        assertOutcome(decision.outcome(1), a, true, 2, 60 * SECOND);
        assertOutcome(decision.outcome(2), b, true, 3, 10 * SECOND);
    }

    @Test
    void everyRefusingLimitIsReportedAndRetryAfterIsTheLongestWait() {
        RateLimitPolicy shortWindow = policy("short", 1, 10);
        RateLimitPolicy longWindow = policy("long", 1, 60);
        RateLimitPolicy open = policy("open", 9, 60);
        String p = partition("a");
        acquire(p, longWindow, shortWindow);
        clock.advanceSeconds(5);

        RateLimitDecision refused = acquire(p, longWindow, open, shortWindow);

        assertThat(refused.allowed()).isFalse();
        assertThat(refused.refused()).extracting(Outcome::policy).containsExactly(longWindow, shortWindow);
        assertOutcome(refused.outcome(0), longWindow, false, 0, 55 * SECOND);
        assertOutcome(refused.outcome(2), shortWindow, false, 0, 5 * SECOND);
        assertThat(refused.retryAfterSeconds()).isEqualTo(55);
    }

    @Test
    void limitWithNothingSpentReportsItsWindowAsReset() {
        RateLimitPolicy exhausted = policy("exhausted", 1, 60);
        RateLimitPolicy fresh = policy("fresh", 7, 30);
        String p = partition("a");
        one(p, exhausted);

        RateLimitDecision refused = acquire(p, exhausted, fresh);

        Outcome freshOutcome = refused.outcome(1);
        assertThat(freshOutcome.policy()).isSameAs(fresh);
        assertThat(freshOutcome.spent()).isFalse();
        assertThat(freshOutcome.remaining()).isEqualTo(7);
        assertThat(freshOutcome.resetSeconds()).isEqualTo(30);
        assertOutcome(one(p, fresh), fresh, true, 6, 30 * SECOND);
    }

    // ---------------------------------------------------------------- give-back

    @Test
    void releaseGivesThePermitBack() {
        RateLimitPolicy limit = policy("give", 2, 60);
        String p = partition("a");
        one(p, limit);
        RateLimitDecision second = acquire(p, limit);
        assertThat(acquire(p, limit).allowed()).isFalse();

        release(second);

        assertOutcome(one(p, limit), limit, true, 0, 60 * SECOND);
        assertThat(acquire(p, limit).allowed()).isFalse();
    }

    @Test
    void releaseReturnsThePermitToTheStepItWasSpentIn() {
        RateLimitPolicy limit = policy("give", 3, 8); // steps of 1 s
        String p = partition("a");
        RateLimitDecision inStep0 = acquire(p, limit);
        clock.set(t0 + 3 * SECOND);
        one(p, limit); // step 3
        clock.set(t0 + 5 * SECOND);

        release(inStep0);

        // only the step-3 permit is left: reset is when it returns, at t0 + 11 s, not the step-0 return at t0 + 8 s
        assertOutcome(one(p, limit), limit, true, 1, 6 * SECOND);
        clock.set(t0 + 8 * SECOND); // nothing returns here any more
        assertOutcome(one(p, limit), limit, true, 0, 3 * SECOND);
    }

    @Test
    void releaseAfterItsStepLeftTheWindowChangesNothing() {
        RateLimitPolicy limit = policy("give", 2, 8); // steps of 1 s; step 8 reuses step 0's slot
        String p = partition("a");
        RateLimitDecision inStep0 = acquire(p, limit);
        clock.set(t0 + 4 * SECOND);
        one(p, limit); // step 4
        clock.set(t0 + 8_500_000_000L); // step 8: the step-0 permit has returned
        assertOutcome(one(p, limit), limit, true, 0, 3_500_000_000L);

        release(inStep0);

        assertOutcome(one(p, limit), limit, false, 0, 3_500_000_000L);
    }

    @Test
    void releaseOfAPermitThatReturnedDoesNotFreeTheNewerPermitOfARenewedCount() {
        RateLimitPolicy limit = policy("give", 1, 8);
        String p = partition("a");
        RateLimitDecision old = acquire(p, limit);
        clock.advanceSeconds(8); // returned; the count is empty and the next acquire re-anchors it
        assertThat(acquire(p, limit).allowed()).isTrue();

        release(old);

        assertOutcome(one(p, limit), limit, false, 0, 8 * SECOND);
    }

    @Test
    void releaseOfATwoLimitDecisionGivesBackBoth() {
        RateLimitPolicy a = policy("a", 2, 60);
        RateLimitPolicy b = policy("b", 3, 60);
        String p = partition("x");
        acquire(p, a, b);
        RateLimitDecision second = acquire(p, a, b);

        release(second);

        RateLimitDecision third = acquire(p, a, b);
        assertOutcome(third.outcome(0), a, true, 0, 60 * SECOND);
        assertOutcome(third.outcome(1), b, true, 1, 60 * SECOND);
    }

    @Test
    void releaseOfARefusedDecisionGivesBackNothing() {
        RateLimitPolicy strict = policy("strict", 1, 60);
        RateLimitPolicy roomy = policy("roomy", 3, 60);
        String p = partition("a");
        acquire(p, strict, roomy);
        RateLimitDecision refused = acquire(p, strict, roomy);

        release(refused);

        assertThat(acquire(p, strict).allowed()).isFalse();
        assertOutcome(one(p, roomy), roomy, true, 1, 60 * SECOND);
    }

    @Test
    void countEmptiedByGiveBackReanchorsAtTheNextAcquire() {
        RateLimitPolicy limit = policy("give", 2, 8);
        String p = partition("a");
        RateLimitDecision only = acquire(p, limit);
        clock.set(t0 + 3_300_000_000L);
        release(only);

        Outcome renewed = one(p, limit);

        assertOutcome(renewed, limit, true, 1, 8 * SECOND); // not 4.7 s: the steps now start here
        clock.set(t0 + 3_300_000_000L + 8 * SECOND - clockResolutionNanos());
        assertOutcome(one(p, limit), limit, true, 0, clockResolutionNanos());
    }

    // ---------------------------------------------------------------- re-anchoring

    @Test
    void emptyCountReanchorsAndBehavesLikeANewCount() {
        RateLimitPolicy limit = policy("anchor", 2, 8);
        String p = partition("a");
        one(p, limit);
        long t1 = t0 + 8_500_000_000L; // the permit returned at t0 + 8 s
        clock.set(t1);

        // a count still anchored at t0 would be in step 8 (t0 + 8 s .. t0 + 9 s) and answer 7.5 s
        assertOutcome(one(p, limit), limit, true, 1, 8 * SECOND);
        clock.set(t1 + SECOND); // step 1 of the new anchor
        assertOutcome(one(p, limit), limit, true, 0, 7 * SECOND);
        clock.set(t1 + 8 * SECOND - clockResolutionNanos());
        assertOutcome(one(p, limit), limit, false, 0, clockResolutionNanos());
        clock.set(t1 + 8 * SECOND);
        assertOutcome(one(p, limit), limit, true, 0, SECOND);
    }

    // ---------------------------------------------------------------- independence

    @Test
    void partitionsCountIndependently() {
        RateLimitPolicy limit = policy("part", 2, 60);
        one(partition("one"), limit);
        one(partition("one"), limit);
        assertThat(acquire(partition("one"), limit).allowed()).isFalse();

        clock.advanceSeconds(1);

        assertOutcome(one(partition("two"), limit), limit, true, 1, 60 * SECOND);
        assertThat(acquire(partition("one"), limit).allowed()).isFalse();
    }

    @Test
    void namesCountIndependently() {
        RateLimitPolicy a = policy("a", 1, 60);
        RateLimitPolicy b = policy("b", 1, 60);
        String p = partition("x");
        one(p, a);

        assertOutcome(one(p, b), b, true, 0, 60 * SECOND);
        assertThat(acquire(p, a).allowed()).isFalse();
    }

    @Test
    void countsOfLookAlikeNamesPlansAndPartitionsNeverCollide() {
        List<String> names = List.of("a", "a.b", "b", "a-b", "a_b", "ab");
        List<String> plans = java.util.Arrays.asList(null, "b", "a", "b.a");
        List<String> partitions = List.of(partition(""), partition("b"), partition(".b"), partition(":b"),
                partition("}b"), partition("{b}"), partition("b\u0000"), partition("\u00e9t\u00e9"),
                partition("x".repeat(1000)), partition("a:b:c"), partition("a%3Ab"), partition("a/b"));
        for (String name : names) {
            for (String plan : plans) {
                RateLimitRequest request = request(List.of(new Item(policy(name, 1, 60), plan, 1, Kind.ACQUIRE)));
                for (String p : partitions) {
                    assertThat(acquire(p, request, 1).allowed())
                            .as("first request of name %s, plan %s, partition %s", name, plan, p)
                            .isTrue();
                }
            }
        }
    }

    // ---------------------------------------------------------------- extremes

    @Test
    void windowOfOneYearCountsToTheNanosecond() {
        RateLimitPolicy yearly = policy("yearly", 1, RateLimitPolicy.MAX_WINDOW_SECONDS);
        long year = RateLimitPolicy.MAX_WINDOW_SECONDS * SECOND;
        String p = partition("a");

        Outcome first = one(p, yearly);
        assertOutcome(first, yearly, true, 0, year);
        assertThat(first.resetSeconds()).isEqualTo(31_536_000L);
        clock.set(t0 + year - clockResolutionNanos());
        assertOutcome(one(p, yearly), yearly, false, 0, clockResolutionNanos());
        clock.set(t0 + year);
        assertOutcome(one(p, yearly), yearly, true, 0, year);
    }

    @Test
    void windowOfOneSecondMovesInStepsOf125Milliseconds() {
        RateLimitPolicy perSecond = policy("second", 2, 1);
        String p = partition("a");
        one(p, perSecond);
        clock.set(t0 + 125_000_000L); // step 1
        assertOutcome(one(p, perSecond), perSecond, true, 0, 875_000_000L);
        clock.set(t0 + SECOND - clockResolutionNanos());
        assertOutcome(one(p, perSecond), perSecond, false, 0, clockResolutionNanos());
        clock.set(t0 + SECOND);
        assertOutcome(one(p, perSecond), perSecond, true, 0, 125_000_000L);
        clock.set(t0 + 1_125_000_000L - clockResolutionNanos());
        assertOutcome(one(p, perSecond), perSecond, false, 0, clockResolutionNanos());
    }

    @Test
    void permitLimitOfOneAllowsOneRequestPerWindow() {
        RateLimitPolicy once = policy("once", 1, 60);
        String p = partition("a");

        assertOutcome(one(p, once), once, true, 0, 60 * SECOND);
        assertOutcome(one(p, once), once, false, 0, 60 * SECOND);
        clock.advanceSeconds(60);
        assertOutcome(one(p, once), once, true, 0, 60 * SECOND);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(RateLimitAlgorithm.class)
    void permitLimitOfIntegerMaxValueCountsWithoutOverflow(RateLimitAlgorithm algorithm) {
        RateLimitPolicy huge = policy("huge", Integer.MAX_VALUE, 3600, algorithm);
        String p = partition("a");

        assertThat(one(p, huge).remaining()).isEqualTo(Integer.MAX_VALUE - 1);
        RateLimitDecision second = acquire(p, huge);
        assertThat(second.outcome(0).remaining()).isEqualTo(Integer.MAX_VALUE - 2);
        release(second);
        assertThat(one(p, huge).remaining()).isEqualTo(Integer.MAX_VALUE - 2);
    }

    // ---------------------------------------------------------------- time

    @Test
    void decisionsDependOnTheInjectedClockAloneNotOnRealTime() {
        RateLimitPolicy limit = policy("time", 3, 60);
        List<Outcome> quick = runSpecExample(partition("quick"), false);
        List<Outcome> slow = runSpecExample(partition("slow"), true);

        assertThat(slow).isEqualTo(quick);
        assertOutcome(quick.get(0), limit, true, 2, 60 * SECOND);
        assertOutcome(quick.get(3), limit, false, 0, 42 * SECOND);
    }

    /**
     * The worked example of docs/responses.md, "Headers"; with {@code letRealTimePass}, real milliseconds pass between
     * requests while the clock stands.
     */
    private List<Outcome> runSpecExample(String p, boolean letRealTimePass) {
        RateLimitPolicy limit = policy("time", 3, 60);
        long start = clock.now();
        List<Outcome> seen = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            if (i == 3) {
                clock.advanceSeconds(18);
            }
            if (letRealTimePass) {
                long until = System.nanoTime() + 2_000_000L;
                while (System.nanoTime() - until < 0) {
                    Thread.onSpinWait();
                }
            }
            Outcome o = one(p, limit);
            seen.add(new Outcome(o.policy(), o.state(), o.remaining(), o.resetNanos(), o.retryAfterNanos(), 0));
        }
        clock.set(start);
        return seen;
    }

    // ---------------------------------------------------------------- concurrency

    @ParameterizedTest(name = "{0}")
    @EnumSource(RateLimitAlgorithm.class)
    void manyThreadsOnOneCountAdmitExactlyTheLimit(RateLimitAlgorithm algorithm) throws Exception {
        RateLimitPolicy limit = policy("hot", 1000, 3600, algorithm);
        RateLimitRequest request = request(limit);
        String p = partition("hot");
        int threads = 8;
        int perThread = 400;
        assertThat(admitted(threads, perThread, () -> acquire(p, request, 1))).isEqualTo(1000);
    }

    @Test
    void manyThreadsOnTwoLimitsAdmitExactlyTheSmallerAndSpendNothingOnRefusal() throws Exception {
        RateLimitPolicy small = policy("small", 300, 3600, RateLimitAlgorithm.TOKEN_BUCKET);
        RateLimitPolicy big = policy("big", 1000, 3600);
        RateLimitRequest both = request(small, big);
        String p = partition("hot");

        assertThat(admitted(8, 200, () -> acquire(p, both, 1))).isEqualTo(300);
        assertThat(one(p, big).remaining()).as("refusals spent nothing from big").isEqualTo(1000 - 300 - 1);
    }

    private static int admitted(int threads, int perThread, java.util.function.Supplier<RateLimitDecision> call)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    start.await();
                    int allowed = 0;
                    for (int i = 0; i < perThread; i++) {
                        if (call.get().allowed()) {
                            allowed++;
                        }
                    }
                    return allowed;
                }));
            }
            start.countDown();
            int total = 0;
            for (Future<Integer> result : results) {
                total += result.get(60, TimeUnit.SECONDS);
            }
            return total;
        } finally {
            pool.shutdownNow();
        }
    }

    // ---------------------------------------------------------------- the rules, at random

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {7, 2024, 31337})
    void decisionsMatchTheReferenceModelOnARandomizedSchedule(long seed) {
        RandomSchedule schedule = new RandomSchedule(seed, partition(""), clockResolutionNanos());
        ReferenceModel model = new ReferenceModel();
        List<RateLimitDecision> unreleased = new ArrayList<>();
        List<ReferenceModel.Decision> unreleasedModel = new ArrayList<>();
        int allowed = 0;
        int refused = 0;
        int released = 0;
        int shadowRefused = 0;
        for (int i = 0; i < 4000; i++) {
            clock.advanceNanos(schedule.nextAdvanceNanos());
            if (schedule.nextIsRelease() && !unreleased.isEmpty()) {
                int index = schedule.nextReleaseIndex(unreleased.size());
                release(unreleased.remove(index));
                model.release(clock.now(), unreleasedModel.remove(index));
                released++;
                continue;
            }
            String p = schedule.nextPartition();
            List<Item> items = schedule.nextItems();
            int multiple = schedule.nextMultiple();
            RateLimitDecision actual = acquire(p, request(items), multiple);
            ReferenceModel.Decision expected = model.acquire(clock.now(), p, items, multiple);
            assertMatches(actual, expected, "operation " + i + " at t0 + " + (clock.now() - t0) + " ns, " + items
                    + " x" + multiple);
            if (actual.allowed()) {
                allowed++;
                unreleased.add(actual);
                unreleasedModel.add(withoutCharges(expected, items));
                for (int k = 0; k < items.size(); k++) {
                    if (items.get(k).kind() == Kind.SHADOW && actual.outcome(k).state() == State.REFUSED) {
                        shadowRefused++;
                    }
                }
            } else {
                refused++;
            }
        }
        assertThat(allowed).as("allowed").isGreaterThan(2000);
        assertThat(refused).as("refused").isGreaterThan(250);
        assertThat(released).as("given back").isGreaterThan(800);
        assertThat(shadowRefused).as("shadow refusals").isGreaterThanOrEqualTo(5);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 4242})
    void reservationsMatchTheReferenceModelOnARandomizedSchedule(long seed) {
        RandomSchedule schedule = RandomSchedule.withWaits(seed, partition(""), clockResolutionNanos());
        ReferenceModel model = new ReferenceModel();
        List<RateLimitDecision> unreleased = new ArrayList<>();
        List<ReferenceModel.Decision> unreleasedModel = new ArrayList<>();
        int waited = 0;
        int refused = 0;
        for (int i = 0; i < 3000; i++) {
            clock.advanceNanos(schedule.nextAdvanceNanos());
            if (schedule.nextIsRelease() && !unreleased.isEmpty()) {
                int index = schedule.nextReleaseIndex(unreleased.size());
                release(unreleased.remove(index));
                model.release(clock.now(), unreleasedModel.remove(index));
                continue;
            }
            String p = schedule.nextPartition();
            List<Item> items = schedule.nextItems();
            int multiple = schedule.nextMultiple();
            RateLimitDecision actual = acquire(p, request(items), multiple);
            ReferenceModel.Decision expected = model.acquire(clock.now(), p, items, multiple);
            assertMatches(actual, expected, "operation " + i + " at t0 + " + (clock.now() - t0) + " ns, " + items
                    + " x" + multiple);
            if (actual.allowed()) {
                unreleased.add(actual);
                unreleasedModel.add(withoutCharges(expected, items));
                waited += actual.waitNanos() > 0 ? 1 : 0;
            } else {
                refused++;
            }
        }
        assertThat(waited).as("calls that waited").isGreaterThan(100);
        assertThat(refused).as("refused").isGreaterThan(50);
    }

    private static ReferenceModel.Decision withoutCharges(ReferenceModel.Decision d, List<Item> items) {
        List<ReferenceModel.Spent> spent = new ArrayList<>();
        for (ReferenceModel.Spent s : d.spent()) {
            boolean charge = false;
            for (Item item : items) {
                charge |= item.key().equals(s.key()) && item.kind() == Kind.CHARGE;
            }
            if (!charge) {
                spent.add(s);
            }
        }
        return new ReferenceModel.Decision(d.allowed(), d.outcomes(), spent);
    }

    /** Every field of every outcome as the model expects; {@code -1} (nothing spent) may be reported as the window. */
    protected static void assertMatches(RateLimitDecision actual, ReferenceModel.Decision expected, String where) {
        assertThat(actual.allowed()).as("allowed, %s", where).isEqualTo(expected.allowed());
        assertThat(actual.size()).as("outcomes, %s", where).isEqualTo(expected.outcomes().size());
        for (int i = 0; i < expected.outcomes().size(); i++) {
            Outcome o = actual.outcome(i);
            ReferenceModel.Expected e = expected.outcomes().get(i);
            String what = e.policy() + " (#" + i + "), " + where;
            assertThat(o.policy()).as("policy of %s", what).isSameAs(e.policy());
            assertThat(o.state()).as("state of %s", what).isEqualTo(e.state());
            assertThat(o.remaining()).as("remaining of %s", what).isEqualTo(e.remaining());
            if (e.resetNanos() < 0) {
                assertThat(o.resetSeconds()).as("reset of empty %s", what).isEqualTo(e.policy().windowSeconds());
            } else {
                assertThat(o.resetNanos()).as("reset of %s", what).isEqualTo(e.resetNanos());
            }
            assertThat(o.retryAfterNanos()).as("retry-after of %s", what).isEqualTo(e.retryAfterNanos());
            assertThat(o.waitNanos()).as("wait of %s", what).isEqualTo(e.waitNanos());
        }
    }

    protected static void assertOutcome(Outcome outcome, RateLimitPolicy policy, boolean allowed, int remaining,
                                        long resetNanos) {
        if (!outcome.policy().equals(policy) || outcome.allowed() != allowed || outcome.remaining() != remaining
                || outcome.resetNanos() != resetNanos) {
            fail("expected %s allowed=%s remaining=%d resetNanos=%d, was %s", policy, allowed, remaining,
                    resetNanos, outcome);
        }
        if (!allowed && outcome.retryAfterNanos() <= 0) {
            fail("a refusal must say when to retry: %s", outcome);
        }
    }

    /** A token bucket's outcome: {@code resetNanos} is the time until it is full again. */
    protected static void assertBucket(Outcome outcome, RateLimitPolicy policy, boolean allowed, int remaining,
                                       long untilFullNanos) {
        assertOutcome(outcome, policy, allowed, remaining, untilFullNanos);
    }
}
