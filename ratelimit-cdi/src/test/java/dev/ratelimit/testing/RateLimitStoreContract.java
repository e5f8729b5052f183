package dev.ratelimit.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitDecision.Outcome;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitScope;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.internal.engine.RequestLedger;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What every {@link RateLimitStore} must do (SPEC 3, 4 and 7), whatever keeps its counts: the
 * in-process store and the Redis store extend this class, so they are provably the same limiter.
 *
 * <h2>Using it</h2>
 * <pre>{@code
 * class RedisRateLimitStoreTest extends RateLimitStoreContract {
 *     @Override
 *     protected RateLimitStore newStore(FakeClock clock) { ... a store whose time is clock ... }
 * }
 * }</pre>
 * It ships in the {@code ratelimit-cdi} test-jar ({@code <type>test-jar</type>}, test scope); the
 * extending module needs JUnit Jupiter (with {@code junit-jupiter-params}) and AssertJ on its test
 * classpath.
 *
 * <h2>The API a store test may use or override (stable)</h2>
 * <ul>
 *   <li>{@link #newStore(FakeClock)} (required): a fresh store, empty as far as this test can see,
 *       whose time is the given clock. Called once per test, before it.</li>
 *   <li>{@link #acquire(RateLimitStore, String, RateLimitPolicy...)}: decides synchronously (joins the
 *       stage, 10 s at most).</li>
 *   <li>{@link #release(RateLimitStore, RateLimitDecision)}: gives back; a store whose release is
 *       asynchronous overrides it to return once the give-back is applied.</li>
 *   <li>{@link #clockResolutionNanos()}: the finest time step the store resolves (1 ns by default; a
 *       store that keeps microseconds returns 1000). Tests that probe "one instant before a boundary"
 *       step back by this much, and the randomized schedule advances in multiples of it.</li>
 *   <li>{@link #closeStore(RateLimitStore)}: called after each test (no-op by default).</li>
 *   <li>{@link #partition(String)}: a partition unique to the running test (the store may be shared
 *       between tests, as a Redis server is).</li>
 * </ul>
 * Protected fields: {@link #clock}, {@link #store}, {@link #t0} (the clock when the test began).
 *
 * <p>Times are exact: a store must report {@code resetNanos} to the nanosecond (at its resolution),
 * with {@code -1} allowed only for a count with nothing spent (then {@code resetSeconds()} is the window).
 * The clock starts at {@link FakeClock#DEFAULT_START} and only moves forward. The randomized test
 * compares the store with {@link ReferenceSlidingWindow} on a {@link RandomSchedule}; both ship in the
 * same test-jar. Give-back is tested through {@code RequestLedger} too (a ledger releases once).
 */
public abstract class RateLimitStoreContract {

    protected static final long SECOND = 1_000_000_000L;

    /** The clock of {@link #store}; tests move it. */
    protected FakeClock clock;
    /** The store under test, fresh for every test. */
    protected RateLimitStore store;
    /** The clock's reading when the test began. */
    protected long t0;

    private String partitionPrefix;

    /** A fresh, empty store whose time is the given fake clock (nanoseconds). */
    protected abstract RateLimitStore newStore(FakeClock clock);

    /** Decides synchronously (joins the stage). */
    protected RateLimitDecision acquire(RateLimitStore store, String partition, RateLimitPolicy... policies) {
        try {
            return store.acquire(partition, List.of(policies)).toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while deciding", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("the store did not decide: " + e, e);
        }
    }

    /** Gives back synchronously: returns once the permits are back. */
    protected void release(RateLimitStore store, RateLimitDecision decision) {
        store.release(decision);
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
        return new RateLimitPolicy(name, permitLimit, windowSeconds, RateLimitScope.TRANSPORT);
    }

    @BeforeEach
    final void createStore(TestInfo info) {
        partitionPrefix = info.getTestMethod().map(Method::getName).orElse("test") + "-"
                + UUID.randomUUID().toString().substring(0, 8) + "-";
        clock = new FakeClock();
        t0 = clock.now();
        store = newStore(clock);
    }

    @AfterEach
    final void disposeStore() {
        if (store != null) {
            closeStore(store);
        }
    }

    // ---------------------------------------------------------------- SPEC 4 example

    @Test
    void firstRequestOfTheSpecExampleLeavesTwoAndResetsInSixtySeconds() {
        RateLimitPolicy limit = policy("default", 3, 60);

        RateLimitDecision first = acquire(store, partition("todos"), limit);

        assertThat(first.allowed()).isTrue();
        assertThat(first.partition()).isEqualTo(partition("todos"));
        assertThat(first.outcomes()).hasSize(1);
        assertOutcome(first.outcomes().get(0), limit, true, 2, 60 * SECOND);
        assertThat(first.outcomes().get(0).resetSeconds()).isEqualTo(60);
        assertThat(first.outcomes().get(0).spent()).isTrue();
        assertThat(first.retryAfterSeconds()).isZero();
    }

    @Test
    void fourthRequestEighteenSecondsAfterTheFirstIsRefusedForFortyTwoSeconds() {
        RateLimitPolicy limit = policy("default", 3, 60);
        String p = partition("todos");

        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, true, 2, 60 * SECOND);
        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, true, 1, 60 * SECOND);
        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, true, 0, 60 * SECOND);
        clock.advanceSeconds(18);
        RateLimitDecision fourth = acquire(store, p, limit);

        assertThat(fourth.allowed()).isFalse();
        assertOutcome(fourth.outcomes().get(0), limit, false, 0, 42 * SECOND);
        assertThat(fourth.outcomes().get(0).spent()).isFalse();
        assertThat(fourth.retryAfterSeconds()).isEqualTo(42);
        assertThat(fourth.outcomes().get(0).resetSeconds()).isEqualTo(42);
        assertThat(fourth.refused()).containsExactly(fourth.outcomes().get(0));
    }

    @Test
    void permitsSpentInOneStepReturnTogetherOneWindowAfterTheStepStarts() {
        RateLimitPolicy limit = policy("default", 3, 60); // steps of 7.5 s
        String p = partition("todos");

        acquire(store, p, limit);
        clock.set(t0 + 5 * SECOND); // still step 0
        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, true, 1, 55 * SECOND);
        clock.set(t0 + 10 * SECOND); // step 1
        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, true, 0, 50 * SECOND);
        clock.set(t0 + 60 * SECOND); // both step-0 permits are back, the step-1 one is not

        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, true, 1, 7_500_000_000L);
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

        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, true, 1, 8 * step); // step 0: anchors
        clock.set(t0 + intoStepK);
        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, true, 0, 8 * step - intoStepK);

        clock.set(t0 + 8 * step - r);
        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, false, 0, r);
        clock.set(t0 + 8 * step);
        if (k == 0) {
            // both permits of step 0 are back: the count is empty and re-anchors here
            assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, true, 1, 8 * step);
            return;
        }
        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, true, 0, k * step);
        clock.set(t0 + (k + 8) * step - r);
        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, false, 0, r);
        clock.set(t0 + (k + 8) * step);
        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, true, 0, (8 - k) * step);
    }

    @Test
    void refusedAcquireSpendsNothing() {
        RateLimitPolicy limit = policy("refused", 2, 8); // steps of 1 s
        String p = partition("a");
        acquire(store, p, limit); // step 0
        clock.set(t0 + 4 * SECOND);
        acquire(store, p, limit); // step 4

        for (int i = 0; i < 10; i++) {
            clock.set(t0 + 5 * SECOND + i * 250_000_000L);
            assertThat(acquire(store, p, limit).allowed()).isFalse();
        }
        clock.set(t0 + 8 * SECOND);

        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, true, 0, 4 * SECOND);
    }

    // ---------------------------------------------------------------- rounding

    @Test
    void waitOfOneNanosecondIsAnnouncedAsOneSecondNeverZero() {
        RateLimitPolicy limit = policy("round", 1, 8);
        acquire(store, partition("a"), limit);
        clock.set(t0 + 8 * SECOND - clockResolutionNanos());

        RateLimitDecision refused = acquire(store, partition("a"), limit);

        assertOutcome(refused.outcomes().get(0), limit, false, 0, clockResolutionNanos());
        assertThat(refused.outcomes().get(0).resetSeconds()).isEqualTo(1);
        assertThat(refused.retryAfterSeconds()).isEqualTo(1);
    }

    @Test
    void waitOfExactlyOneSecondIsAnnouncedAsOneSecond() {
        RateLimitPolicy limit = policy("round", 1, 8);
        acquire(store, partition("a"), limit);
        clock.set(t0 + 7 * SECOND);

        RateLimitDecision refused = acquire(store, partition("a"), limit);

        assertOutcome(refused.outcomes().get(0), limit, false, 0, SECOND);
        assertThat(refused.retryAfterSeconds()).isEqualTo(1);
    }

    @Test
    void waitOfOneSecondAndOneNanosecondIsAnnouncedAsTwoSeconds() {
        RateLimitPolicy limit = policy("round", 1, 8);
        acquire(store, partition("a"), limit);
        clock.set(t0 + 7 * SECOND - clockResolutionNanos());

        RateLimitDecision refused = acquire(store, partition("a"), limit);

        assertOutcome(refused.outcomes().get(0), limit, false, 0, SECOND + clockResolutionNanos());
        assertThat(refused.outcomes().get(0).resetSeconds()).isEqualTo(2);
        assertThat(refused.retryAfterSeconds()).isEqualTo(2);
    }

    @Test
    void resetOfAnAllowedRequestIsRoundedUpToWholeSeconds() {
        RateLimitPolicy limit = policy("round", 2, 8);
        acquire(store, partition("a"), limit);
        clock.set(t0 + 6_500_000_000L);

        Outcome second = acquire(store, partition("a"), limit).outcomes().get(0);

        assertOutcome(second, limit, true, 0, 1_500_000_000L);
        assertThat(second.resetSeconds()).isEqualTo(2);
    }

    // ---------------------------------------------------------------- one name, two sizes

    @Test
    void countTakesItsSizeFromThePolicyThatCreatedItWhileTheOutcomeNamesTheCallersPolicy() {
        RateLimitPolicy big = policy("shared", 5, 10);
        RateLimitPolicy small = policy("shared", 2, 60);
        String p = partition("a");

        assertOutcome(acquire(store, p, big).outcomes().get(0), big, true, 4, 10 * SECOND);
        Outcome bySmall = acquire(store, p, small).outcomes().get(0);

        assertThat(bySmall.policy()).isSameAs(small);
        assertOutcome(bySmall, small, true, 3, 10 * SECOND);
        assertOutcome(acquire(store, p, small).outcomes().get(0), small, true, 2, 10 * SECOND);
        assertOutcome(acquire(store, p, small).outcomes().get(0), small, true, 1, 10 * SECOND);
        assertOutcome(acquire(store, p, small).outcomes().get(0), small, true, 0, 10 * SECOND);
        clock.advanceSeconds(4);
        RateLimitDecision refused = acquire(store, p, small);
        assertOutcome(refused.outcomes().get(0), small, false, 0, 6 * SECOND);
        assertThat(refused.retryAfterSeconds()).isEqualTo(6);
    }

    @Test
    void emptiedCountTakesItsSizeFromTheRequestThatFindsItEmpty() {
        RateLimitPolicy big = policy("shared", 5, 10);
        RateLimitPolicy small = policy("shared", 2, 60);
        String p = partition("a");
        acquire(store, p, big);
        acquire(store, p, big);
        clock.advanceSeconds(10); // everything spent by the big limit has returned

        assertOutcome(acquire(store, p, small).outcomes().get(0), small, true, 1, 60 * SECOND);
        clock.advanceSeconds(1);
        assertOutcome(acquire(store, p, big).outcomes().get(0), big, true, 0, 59 * SECOND);
        assertOutcome(acquire(store, p, big).outcomes().get(0), big, false, 0, 59 * SECOND);
    }

    // ---------------------------------------------------------------- all or nothing

    @Test
    void refusedRequestSpendsNothingFromOtherLimits() {
        RateLimitPolicy strict = policy("strict", 1, 60);
        RateLimitPolicy roomy = policy("roomy", 5, 60);
        String p = partition("a");

        RateLimitDecision first = acquire(store, p, strict, roomy);
        assertThat(first.allowed()).isTrue();
        assertOutcome(first.outcomes().get(0), strict, true, 0, 60 * SECOND);
        assertOutcome(first.outcomes().get(1), roomy, true, 4, 60 * SECOND);
        assertThat(first.outcomes()).allMatch(Outcome::spent);

        clock.advanceSeconds(1);
        for (int i = 0; i < 3; i++) {
            RateLimitDecision refused = acquire(store, p, strict, roomy);
            assertThat(refused.allowed()).isFalse();
            assertThat(refused.refused()).extracting(Outcome::policy).containsExactly(strict);
            assertOutcome(refused.outcomes().get(0), strict, false, 0, 59 * SECOND);
            assertThat(refused.outcomes().get(1).policy()).isSameAs(roomy);
            assertThat(refused.outcomes().get(1).spent()).isFalse();
            assertThat(refused.outcomes().get(1).remaining()).isEqualTo(4);
        }
        RateLimitDecision reversed = acquire(store, p, roomy, strict);
        assertThat(reversed.allowed()).isFalse();
        assertThat(reversed.outcomes()).extracting(Outcome::policy).containsExactly(roomy, strict);
        assertThat(reversed.outcomes().get(0).remaining()).isEqualTo(4);

        assertOutcome(acquire(store, p, roomy).outcomes().get(0), roomy, true, 3, 59 * SECOND);
    }

    @Test
    void outcomesFollowTheOrderOfThePoliciesGiven() {
        RateLimitPolicy a = policy("a", 3, 60);
        RateLimitPolicy b = policy("b", 4, 10);
        RateLimitPolicy c = policy("c", 5, 1);

        RateLimitDecision decision = acquire(store, partition("x"), c, a, b);

        assertThat(decision.allowed()).isTrue();
        assertOutcome(decision.outcomes().get(0), c, true, 4, SECOND);
        assertOutcome(decision.outcomes().get(1), a, true, 2, 60 * SECOND);
        assertOutcome(decision.outcomes().get(2), b, true, 3, 10 * SECOND);
    }

    @Test
    void everyRefusingLimitIsReportedAndRetryAfterIsTheLongestWait() {
        RateLimitPolicy shortWindow = policy("short", 1, 10);
        RateLimitPolicy longWindow = policy("long", 1, 60);
        RateLimitPolicy open = policy("open", 9, 60);
        String p = partition("a");
        acquire(store, p, longWindow, shortWindow);
        clock.advanceSeconds(5);

        RateLimitDecision refused = acquire(store, p, longWindow, open, shortWindow);

        assertThat(refused.allowed()).isFalse();
        assertThat(refused.refused()).extracting(Outcome::policy).containsExactly(longWindow, shortWindow);
        assertOutcome(refused.outcomes().get(0), longWindow, false, 0, 55 * SECOND);
        assertOutcome(refused.outcomes().get(2), shortWindow, false, 0, 5 * SECOND);
        assertThat(refused.retryAfterSeconds()).isEqualTo(55);
    }

    @Test
    void limitWithNothingSpentReportsItsWindowAsReset() {
        RateLimitPolicy exhausted = policy("exhausted", 1, 60);
        RateLimitPolicy fresh = policy("fresh", 7, 30);
        String p = partition("a");
        acquire(store, p, exhausted);

        RateLimitDecision refused = acquire(store, p, exhausted, fresh);

        Outcome freshOutcome = refused.outcomes().get(1);
        assertThat(freshOutcome.policy()).isSameAs(fresh);
        assertThat(freshOutcome.spent()).isFalse();
        assertThat(freshOutcome.remaining()).isEqualTo(7);
        assertThat(freshOutcome.resetSeconds()).isEqualTo(30);
        assertOutcome(acquire(store, p, fresh).outcomes().get(0), fresh, true, 6, 30 * SECOND);
    }

    // ---------------------------------------------------------------- give-back

    @Test
    void releaseGivesThePermitBack() {
        RateLimitPolicy limit = policy("give", 2, 60);
        String p = partition("a");
        acquire(store, p, limit);
        RateLimitDecision second = acquire(store, p, limit);
        assertThat(acquire(store, p, limit).allowed()).isFalse();

        release(store, second);

        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, true, 0, 60 * SECOND);
        assertThat(acquire(store, p, limit).allowed()).isFalse();
    }

    @Test
    void releaseReturnsThePermitToTheStepItWasSpentIn() {
        RateLimitPolicy limit = policy("give", 3, 8); // steps of 1 s
        String p = partition("a");
        RateLimitDecision inStep0 = acquire(store, p, limit);
        clock.set(t0 + 3 * SECOND);
        acquire(store, p, limit); // step 3
        clock.set(t0 + 5 * SECOND);

        release(store, inStep0);

        // only the step-3 permit is left: reset is when it returns, at t0 + 11 s, not the step-0 return at t0 + 8 s
        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, true, 1, 6 * SECOND);
        clock.set(t0 + 8 * SECOND); // nothing returns here any more
        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, true, 0, 3 * SECOND);
    }

    @Test
    void releaseAfterItsStepLeftTheWindowChangesNothing() {
        RateLimitPolicy limit = policy("give", 2, 8); // steps of 1 s; step 8 reuses step 0's slot
        String p = partition("a");
        RateLimitDecision inStep0 = acquire(store, p, limit);
        clock.set(t0 + 4 * SECOND);
        acquire(store, p, limit); // step 4
        clock.set(t0 + 8_500_000_000L); // step 8: the step-0 permit has returned
        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, true, 0, 3_500_000_000L);

        release(store, inStep0);

        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, false, 0, 3_500_000_000L);
    }

    @Test
    void releaseOfAPermitThatReturnedDoesNotFreeTheNewerPermitOfARenewedCount() {
        RateLimitPolicy limit = policy("give", 1, 8);
        String p = partition("a");
        RateLimitDecision old = acquire(store, p, limit);
        clock.advanceSeconds(8); // returned; the count is empty and the next acquire re-anchors it
        assertThat(acquire(store, p, limit).allowed()).isTrue();

        release(store, old);

        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, false, 0, 8 * SECOND);
    }

    @Test
    void releaseOfATwoLimitDecisionGivesBackBoth() {
        RateLimitPolicy a = policy("a", 2, 60);
        RateLimitPolicy b = policy("b", 3, 60);
        String p = partition("x");
        acquire(store, p, a, b);
        RateLimitDecision second = acquire(store, p, a, b);

        release(store, second);

        RateLimitDecision third = acquire(store, p, a, b);
        assertOutcome(third.outcomes().get(0), a, true, 0, 60 * SECOND);
        assertOutcome(third.outcomes().get(1), b, true, 1, 60 * SECOND);
    }

    @Test
    void releaseOfARefusedDecisionGivesBackNothing() {
        RateLimitPolicy strict = policy("strict", 1, 60);
        RateLimitPolicy roomy = policy("roomy", 3, 60);
        String p = partition("a");
        acquire(store, p, strict, roomy);
        RateLimitDecision refused = acquire(store, p, strict, roomy);

        release(store, refused);

        assertThat(acquire(store, p, strict).allowed()).isFalse();
        assertOutcome(acquire(store, p, roomy).outcomes().get(0), roomy, true, 1, 60 * SECOND);
    }

    @Test
    void ledgerGivesBackEachPermitOnceHoweverOftenItIsReleased() {
        RateLimitPolicy limit = policy("ledger", 3, 60);
        String p = partition("a");
        acquire(store, p, limit); // another request's permit, in the same step
        RequestLedger ledger = new RequestLedger(p, "GET /todos");
        ledger.record(acquire(store, p, limit));

        ledger.releaseAll(store);
        ledger.releaseAll(store);

        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, true, 1, 60 * SECOND);
    }

    @Test
    void countEmptiedByGiveBackReanchorsAtTheNextAcquire() {
        RateLimitPolicy limit = policy("give", 2, 8);
        String p = partition("a");
        RateLimitDecision only = acquire(store, p, limit);
        clock.set(t0 + 3_300_000_000L);
        release(store, only);

        Outcome renewed = acquire(store, p, limit).outcomes().get(0);

        assertOutcome(renewed, limit, true, 1, 8 * SECOND); // not 4.7 s: the steps now start here
        clock.set(t0 + 3_300_000_000L + 8 * SECOND - clockResolutionNanos());
        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, true, 0, clockResolutionNanos());
    }

    // ---------------------------------------------------------------- re-anchoring

    @Test
    void emptyCountReanchorsAndBehavesLikeANewCount() {
        RateLimitPolicy limit = policy("anchor", 2, 8);
        String p = partition("a");
        acquire(store, p, limit);
        long t1 = t0 + 8_500_000_000L; // the permit returned at t0 + 8 s
        clock.set(t1);

        // a count still anchored at t0 would be in step 8 (t0 + 8 s .. t0 + 9 s) and answer 7.5 s
        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, true, 1, 8 * SECOND);
        clock.set(t1 + SECOND); // step 1 of the new anchor
        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, true, 0, 7 * SECOND);
        clock.set(t1 + 8 * SECOND - clockResolutionNanos());
        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, false, 0, clockResolutionNanos());
        clock.set(t1 + 8 * SECOND);
        assertOutcome(acquire(store, p, limit).outcomes().get(0), limit, true, 0, SECOND);
    }

    // ---------------------------------------------------------------- independence

    @Test
    void partitionsCountIndependently() {
        RateLimitPolicy limit = policy("part", 2, 60);
        acquire(store, partition("one"), limit);
        acquire(store, partition("one"), limit);
        assertThat(acquire(store, partition("one"), limit).allowed()).isFalse();

        clock.advanceSeconds(1);

        assertOutcome(acquire(store, partition("two"), limit).outcomes().get(0), limit, true, 1, 60 * SECOND);
        assertThat(acquire(store, partition("one"), limit).allowed()).isFalse();
    }

    @Test
    void namesCountIndependently() {
        RateLimitPolicy a = policy("a", 1, 60);
        RateLimitPolicy b = policy("b", 1, 60);
        String p = partition("x");
        acquire(store, p, a);

        assertOutcome(acquire(store, p, b).outcomes().get(0), b, true, 0, 60 * SECOND);
        assertThat(acquire(store, p, a).allowed()).isFalse();
    }

    @Test
    void countsOfLookAlikeNamesAndPartitionsNeverCollide() {
        List<String> names = List.of("a", "a.b", "b", "a-b", "a_b", "ab");
        List<String> partitions = List.of(partition(""), partition("b"), partition(".b"), partition(":b"),
                partition("}b"), partition("{b}"), partition("b\u0000"), partition("\u00e9t\u00e9"),
                partition("x".repeat(1000)), partition("a:b:c"), partition("a%3Ab"));
        for (String name : names) {
            for (String p : partitions) {
                RateLimitPolicy limit = policy(name, 1, 60);
                assertThat(acquire(store, p, limit).allowed())
                        .as("first request of name %s, partition %s", name, p)
                        .isTrue();
            }
        }
    }

    // ---------------------------------------------------------------- extremes

    @Test
    void windowOfOneYearCountsToTheNanosecond() {
        RateLimitPolicy yearly = policy("yearly", 1, RateLimitPolicy.MAX_WINDOW_SECONDS);
        long year = RateLimitPolicy.MAX_WINDOW_SECONDS * SECOND;
        String p = partition("a");

        Outcome first = acquire(store, p, yearly).outcomes().get(0);
        assertOutcome(first, yearly, true, 0, year);
        assertThat(first.resetSeconds()).isEqualTo(31_536_000L);
        clock.set(t0 + year - clockResolutionNanos());
        assertOutcome(acquire(store, p, yearly).outcomes().get(0), yearly, false, 0, clockResolutionNanos());
        clock.set(t0 + year);
        assertOutcome(acquire(store, p, yearly).outcomes().get(0), yearly, true, 0, year);
    }

    @Test
    void windowOfOneSecondMovesInStepsOf125Milliseconds() {
        RateLimitPolicy perSecond = policy("second", 2, 1);
        String p = partition("a");
        acquire(store, p, perSecond);
        clock.set(t0 + 125_000_000L); // step 1
        assertOutcome(acquire(store, p, perSecond).outcomes().get(0), perSecond, true, 0, 875_000_000L);
        clock.set(t0 + SECOND - clockResolutionNanos());
        assertOutcome(acquire(store, p, perSecond).outcomes().get(0), perSecond, false, 0, clockResolutionNanos());
        clock.set(t0 + SECOND);
        assertOutcome(acquire(store, p, perSecond).outcomes().get(0), perSecond, true, 0, 125_000_000L);
        clock.set(t0 + 1_125_000_000L - clockResolutionNanos());
        assertOutcome(acquire(store, p, perSecond).outcomes().get(0), perSecond, false, 0, clockResolutionNanos());
    }

    @Test
    void permitLimitOfOneAllowsOneRequestPerWindow() {
        RateLimitPolicy once = policy("once", 1, 60);
        String p = partition("a");

        assertOutcome(acquire(store, p, once).outcomes().get(0), once, true, 0, 60 * SECOND);
        assertOutcome(acquire(store, p, once).outcomes().get(0), once, false, 0, 60 * SECOND);
        clock.advanceSeconds(60);
        assertOutcome(acquire(store, p, once).outcomes().get(0), once, true, 0, 60 * SECOND);
    }

    @Test
    void permitLimitOfIntegerMaxValueCountsWithoutOverflow() {
        RateLimitPolicy huge = policy("huge", Integer.MAX_VALUE, 60);
        String p = partition("a");

        assertOutcome(acquire(store, p, huge).outcomes().get(0), huge, true, Integer.MAX_VALUE - 1, 60 * SECOND);
        RateLimitDecision second = acquire(store, p, huge);
        assertOutcome(second.outcomes().get(0), huge, true, Integer.MAX_VALUE - 2, 60 * SECOND);
        release(store, second);
        assertOutcome(acquire(store, p, huge).outcomes().get(0), huge, true, Integer.MAX_VALUE - 2, 60 * SECOND);
    }

    // ---------------------------------------------------------------- time

    @Test
    void decisionsDependOnTheInjectedClockAloneNotOnRealTime() {
        RateLimitPolicy limit = policy("time", 3, 60);
        List<List<Outcome>> quick = runSpecExample(partition("quick"), false);
        List<List<Outcome>> slow = runSpecExample(partition("slow"), true);

        assertThat(slow).isEqualTo(quick);
        assertThat(quick.get(0)).singleElement()
                .satisfies(o -> assertOutcome(o, limit, true, 2, 60 * SECOND));
        assertThat(quick.get(3)).singleElement()
                .satisfies(o -> assertOutcome(o, limit, false, 0, 42 * SECOND));
    }

    /** The SPEC 4 sequence; with {@code letRealTimePass}, real milliseconds pass between requests while the clock stands. */
    private List<List<Outcome>> runSpecExample(String p, boolean letRealTimePass) {
        RateLimitPolicy limit = policy("time", 3, 60);
        List<List<Outcome>> seen = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            if (i == 3) {
                clock.advanceSeconds(18);
            }
            if (letRealTimePass) {
                letRealTimePass(2_000_000L);
            }
            seen.add(withoutReceipts(acquire(store, p, limit).outcomes()));
        }
        return seen;
    }

    private static void letRealTimePass(long nanos) {
        long until = System.nanoTime() + nanos;
        while (System.nanoTime() - until < 0) {
            Thread.onSpinWait();
        }
    }

    /** Receipts are absolute instants; the two runs start at different ones. */
    private static List<Outcome> withoutReceipts(List<Outcome> outcomes) {
        List<Outcome> stripped = new ArrayList<>();
        for (Outcome o : outcomes) {
            stripped.add(new Outcome(o.policy(), o.allowed(), o.remaining(), o.resetNanos(),
                    o.spent() ? 0 : RateLimitDecision.NO_RECEIPT));
        }
        return stripped;
    }

    // ---------------------------------------------------------------- the window rules, at random

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {7, 2024})
    void decisionsMatchTheReferenceModelOnARandomizedSchedule(long seed) {
        RandomSchedule schedule = new RandomSchedule(seed, partition(""), clockResolutionNanos());
        ReferenceSlidingWindow model = new ReferenceSlidingWindow();
        List<RateLimitDecision> unreleased = new ArrayList<>();
        List<ReferenceSlidingWindow.Decision> unreleasedModel = new ArrayList<>();
        int allowed = 0;
        int refused = 0;
        int released = 0;
        for (int i = 0; i < 3000; i++) {
            clock.advanceNanos(schedule.nextAdvanceNanos());
            if (schedule.nextIsRelease() && !unreleased.isEmpty()) {
                int index = schedule.nextReleaseIndex(unreleased.size());
                release(store, unreleased.remove(index));
                model.release(clock.now(), unreleasedModel.remove(index));
                released++;
                continue;
            }
            String p = schedule.nextPartition();
            List<RateLimitPolicy> policies = schedule.nextPolicies();
            RateLimitDecision actual = acquire(store, p, policies.toArray(RateLimitPolicy[]::new));
            ReferenceSlidingWindow.Decision expected = model.acquire(clock.now(), p, policies);
            assertMatches(actual, expected, "operation " + i + " at t0 + " + (clock.now() - t0) + " ns");
            if (actual.allowed()) {
                allowed++;
                unreleased.add(actual);
                unreleasedModel.add(expected);
            } else {
                refused++;
            }
        }
        assertThat(allowed).as("allowed").isGreaterThan(500);
        assertThat(refused).as("refused").isGreaterThan(200);
        assertThat(released).as("given back").isGreaterThan(300);
    }

    /** Every field of every outcome as the model expects; {@code -1} (nothing spent) may be reported as the window. */
    protected static void assertMatches(RateLimitDecision actual, ReferenceSlidingWindow.Decision expected,
                                        String where) {
        assertThat(actual.allowed()).as("allowed, %s", where).isEqualTo(expected.allowed());
        assertThat(actual.outcomes()).as("outcomes, %s", where).hasSameSizeAs(expected.outcomes());
        for (int i = 0; i < expected.outcomes().size(); i++) {
            Outcome o = actual.outcomes().get(i);
            ReferenceSlidingWindow.Expected e = expected.outcomes().get(i);
            String what = e.policy() + ", " + where;
            assertThat(o.policy()).as("policy of %s", what).isSameAs(e.policy());
            assertThat(o.allowed()).as("allowed by %s", what).isEqualTo(e.allowed());
            assertThat(o.remaining()).as("remaining of %s", what).isEqualTo(e.remaining());
            if (e.resetNanos() < 0) {
                assertThat(o.resetSeconds()).as("reset of empty %s", what).isEqualTo(e.policy().windowSeconds());
            } else {
                assertThat(o.resetNanos()).as("reset of %s", what).isEqualTo(e.resetNanos());
            }
            assertThat(o.spent()).as("spent from %s", what).isEqualTo(expected.allowed());
        }
    }

    protected static void assertOutcome(Outcome outcome, RateLimitPolicy policy, boolean allowed, int remaining,
                                        long resetNanos) {
        if (!outcome.policy().equals(policy) || outcome.allowed() != allowed || outcome.remaining() != remaining
                || outcome.resetNanos() != resetNanos) {
            fail("expected %s allowed=%s remaining=%d resetNanos=%d, was %s", policy, allowed, remaining,
                    resetNanos, outcome);
        }
    }
}
