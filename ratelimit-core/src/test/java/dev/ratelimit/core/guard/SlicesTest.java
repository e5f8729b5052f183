package dev.ratelimit.core.guard;

import static dev.ratelimit.core.testing.EngineFixtures.beanMethod;
import static dev.ratelimit.core.testing.EngineFixtures.decideNow;
import static dev.ratelimit.core.testing.EngineFixtures.limit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.testing.ManualClock;
import dev.ratelimit.core.testing.SharedMapStore;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Slices on one instance, on a shared store of the core's own arithmetic ({@link SharedMapStore}), its clock moved by
 * hand: how a slice is sized, when its lease ends, what goes back, how many are kept, and what configuration says.
 */
class SlicesTest {

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    private final ManualClock clock = new ManualClock();
    private final SharedMapStore shared = new SharedMapStore(clock);

    private RateLimitEngine engine(String... more) {
        Map<String, String> values = new HashMap<>(Map.of("ratelimit.store.slices", "true"));
        for (int i = 0; i < more.length; i += 2) {
            values.put(more[i], more[i + 1]);
        }
        RateLimitEngine engine = RateLimitEngine.builder(RateLimitSettings.of(values), shared.instance()).clock(clock)
                .build();
        assertThat(engine.guard().slicing()).as("the store announces: slices may be taken").isTrue();
        return engine;
    }

    private static BoundLimits bind(RateLimitEngine engine, LimitDeclaration limit) {
        return engine.binder().bind(beanMethod("Sliced.call()", limit));
    }

    private static int admitted(RateLimitEngine engine, BoundLimits limits, String partition, int requests) {
        int admitted = 0;
        for (int i = 0; i < requests; i++) {
            admitted += decideNow(engine, engine.ledger(partition), limits).allowed() ? 1 : 0;
        }
        return admitted;
    }

    @Test
    void aBusyCountTakesSlicesSizedByItsRateAndTheFirstRequestOfALeaseAsksTheStore() {
        RateLimitEngine engine = engine();
        BoundLimits limits = bind(engine, limit("busy", 1000, 60));

        assertThat(admitted(engine, limits, "p", 50)).isEqualTo(50);

        List<Integer> multiples = shared.multiples();
        assertThat(multiples.get(0)).as("the first request: exactly, learning the rate and what remains").isEqualTo(1);
        // each slice as large as the requests seen over the lease so far: 2, 4, 8... (never more than 100 of 1000)
        assertThat(multiples).as("store calls of 50 requests").hasSizeLessThanOrEqualTo(7);
        assertThat(multiples.subList(1, multiples.size())).allSatisfy(k -> assertThat(k).isBetween(2, 100));
    }

    @Test
    void aSliceIsNeverMoreThanTheMaxShareOfTheLimitNorHalfWhatRemainsSoTheLastPermitsAreSharedExactly() {
        RateLimitEngine engine = engine("ratelimit.store.slice-max-share", "0.2");
        BoundLimits limits = bind(engine, limit("shared", 100, 60));

        assertThat(admitted(engine, limits, "p", 150)).as("every permit used, none more").isEqualTo(100);

        int remaining = 100;
        for (int k : shared.multiples()) {
            assertThat(k).as("a slice of at most 0.2 x 100").isLessThanOrEqualTo(20);
            assertThat(k == 1 || k <= remaining / 2).as("a slice of %d with %d left", k, remaining).isTrue();
            remaining -= Math.min(k, remaining);
        }
        List<Integer> multiples = shared.multiples();
        assertThat(multiples.get(multiples.size() - 1)).as("the last permits: one by one").isEqualTo(1);
    }

    @Test
    void aCountSeenOnceALeaseTakesNoSlice() {
        RateLimitEngine engine = engine("ratelimit.store.slice-lease-millis", "200");
        BoundLimits limits = bind(engine, limit("rare", 100, 60));
        for (int i = 0; i < 20; i++) {
            assertThat(admitted(engine, limits, "p", 1)).isEqualTo(1);
            clock.advanceMillis(200);
        }
        assertThat(shared.multiples()).as("one exact store call a request").hasSize(20).containsOnly(1);
    }

    @Test
    void aWindowsSliceEndsWithTheStepItsPermitsWereSpentInEvenWhenTheLeaseIsLonger() {
        RateLimitEngine engine = engine("ratelimit.store.slice-lease-millis", "5000");
        BoundLimits limits = bind(engine, limit(new RateLimitPolicy("steps", 1000, 8), 1)); // steps of 1 s
        clock.advanceMillis(300);
        admitted(engine, limits, "p", 20); // the count is anchored 0.3 s into a second: its steps end at .3
        long calls = shared.acquires();
        clock.advanceNanos(SECOND - 2_000); // 2 us before the step ends
        admitted(engine, limits, "p", 1);
        assertThat(shared.acquires()).as("still in the step: decided at home").isEqualTo(calls);

        clock.advanceNanos(1_000); // within the margin: the store's step may have ended by its clock
        admitted(engine, limits, "p", 1);
        assertThat(shared.acquires()).as("the step ended: the store is asked, though the lease is 5 s")
                .isGreaterThan(calls);
    }

    @Test
    void aTokenBucketsSliceLastsTheLease() {
        RateLimitEngine engine = engine("ratelimit.store.slice-lease-millis", "2000");
        BoundLimits limits = bind(engine, limit(new RateLimitPolicy("bucket", 1000, 8, RateLimitAlgorithm.TOKEN_BUCKET), 1));
        admitted(engine, limits, "p", 40);
        long calls = shared.acquires();
        clock.advanceMillis(1500);
        admitted(engine, limits, "p", 1);
        assertThat(shared.acquires()).as("within the lease: at home").isEqualTo(calls);
        clock.advanceMillis(600);
        admitted(engine, limits, "p", 1);
        assertThat(shared.acquires()).as("the lease ended: the store is asked").isGreaterThan(calls);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"5.9, 8, 0.9", "6.0, 8, 1.0", "9.25, 9, 0.25", "0.5, 8, 0.5"})
    void theTimeLeftInTheStepIsTheResetModuloTheStep(double resetSteps, int unused, double leftSteps) {
        long step = SECOND;
        long left = Slices.leftInStep((long) (resetSteps * step), step);
        assertThat(left).isEqualTo((long) (leftSteps * step) - 1_000);
        assertThat(Slices.leftInStep(-1, step)).as("nothing spent: no lease").isZero();
    }

    @Test
    void theUnusedPartGoesBackOnceTheLeaseEndsAndAnIdleSliceIsForgotten() throws Exception {
        RateLimitEngine engine = engine();
        BoundLimits limits = bind(engine, limit("back", 1000, 60));
        RateLimitDecision last = null;
        for (int i = 0; i < 40; i++) {
            last = decideNow(engine, engine.ledger("p"), limits);
        }
        assertThat(shared.inspect("p", last.request()).remaining()).as("slices held").isLessThan(1000 - 40);
        assertThat(last.outcome(0).remaining()).as("headers: the store's remaining plus the unused slice")
                .isEqualTo(1000 - 40);

        clock.advanceMillis(1000);
        assertThat(engine.guard().sweepSlices()).as("slices held after one lease").isEqualTo(1);
        assertThat(shared.inspect("p", last.request()).remaining()).as("every unused permit back").isEqualTo(1000 - 40);

        clock.advanceMillis(2000);
        assertThat(engine.guard().sweepSlices()).as("slices held after two idle leases").isZero();
    }

    @Test
    void theEnginesShutdownGivesEverySliceBack() {
        RateLimitEngine engine = engine();
        BoundLimits limits = bind(engine, limit("closing", 1000, 60));
        RateLimitDecision last = null;
        for (int i = 0; i < 40; i++) {
            last = decideNow(engine, engine.ledger("p"), limits);
        }
        engine.close();
        assertThat(shared.inspect("p", last.request()).remaining()).isEqualTo(1000 - 40);
        long calls = shared.acquires();
        admitted(engine, limits, "p", 10);
        assertThat(shared.acquires() - calls).as("no slice taken after shutdown").isEqualTo(10);
    }

    @Test
    void noMoreSlicesAreHeldThanMaxTrackedPartitionsTheRestAreDecidedExactly() {
        RateLimitEngine engine = engine("ratelimit.max-tracked-partitions", "3");
        BoundLimits limits = bind(engine, limit("many", 1000, 60));
        for (int p = 0; p < 10; p++) {
            assertThat(admitted(engine, limits, "p" + p, 20)).isEqualTo(20);
        }
        assertThat(engine.guard().sweepSlices()).isLessThanOrEqualTo(3);
        long calls = shared.acquires();
        admitted(engine, limits, "p9", 5);
        assertThat(shared.acquires() - calls).as("a partition with no room: exactly").isEqualTo(5);
    }

    @Test
    void shadowLimitsCallsThatMayWaitAndLimitsNotSlicedGoToTheStoreEveryTime() {
        RateLimitEngine engine = engine("ratelimit.limits.shadowed.mode", "shadow", "ratelimit.limits.exact.slices",
                "false");
        BoundLimits shadowed = engine.binder().bind(beanMethod("Shadow.call()", limit("shadowed", 1000, 60)));
        BoundLimits waiting = engine.binder().bind(beanMethod("Wait.call()",
                limit(new RateLimitPolicy("waiting", 1000, 60), 100, RateLimitPer.CALLER)));
        BoundLimits exact = engine.binder().bind(beanMethod("Exact.call()", limit("exact", 1000, 60)));
        for (BoundLimits limits : List.of(shadowed, waiting, exact)) {
            long calls = shared.acquires();
            admitted(engine, limits, "p", 30);
            assertThat(shared.acquires() - calls).as("store calls of 30 requests").isEqualTo(30);
        }
    }

    @Test
    void aLimitsOwnKeySlicesItWhenTheStoresDoesNot() {
        Map<String, String> values = Map.of("ratelimit.limits.own.slices", "true");
        RateLimitEngine engine = RateLimitEngine.builder(RateLimitSettings.of(values), shared.instance()).clock(clock)
                .build();
        BoundLimits own = bind(engine, limit("own", 1000, 60));
        BoundLimits other = engine.binder().bind(beanMethod("Other.call()", limit("other", 1000, 60)));
        long calls = shared.acquires();
        admitted(engine, own, "p", 30);
        assertThat(shared.acquires() - calls).as("sliced").isLessThan(30);
        calls = shared.acquires();
        admitted(engine, other, "p", 30);
        assertThat(shared.acquires() - calls).as("exact").isEqualTo(30);
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({"ratelimit.store.slice-max-share, 0", "ratelimit.store.slice-max-share, 1.5",
            "ratelimit.store.slice-max-share, a tenth", "ratelimit.store.slice-lease-millis, 0",
            "ratelimit.store.slice-lease-millis, 60001", "ratelimit.store.slice-lease-millis, 1s",
            "ratelimit.store.slices, yes", "ratelimit.limits.login.slices, maybe"})
    void aBadValueIsAnErrorNamingTheKeyAndTheValue(String key, String value) {
        assertThatThrownBy(() -> RateLimitSettings.of(Map.of(key, value)))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining(key).hasMessageContaining(value);
    }
}
