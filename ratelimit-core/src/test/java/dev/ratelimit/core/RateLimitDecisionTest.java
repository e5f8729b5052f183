package dev.ratelimit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitRequest.Kind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The decision value and the policy value: rounding, refusal summary, validation. */
class RateLimitDecisionTest {

    private static final RateLimitPolicy BURST = new RateLimitPolicy("burst", 5, 1);
    private static final RateLimitPolicy HOURLY = new RateLimitPolicy("hourly", 500, 3600);
    private static final RateLimitPolicy GLOBAL = new RateLimitPolicy("application", 1000, 60);

    @ParameterizedTest(name = "{0} ns -> {1} s")
    @CsvSource({
        "0, 1",
        "1, 1",
        "500000000, 1",
        "999999999, 1",
        "1000000000, 1",
        "1000000001, 2",
        "1500000000, 2",
        "41999999999, 42",
        "42000000000, 42",
        "42000000001, 43",
        "31536000000000000, 31536000"})
    void waitsAreRoundedUpToWholeSecondsAndAreNeverZero(long nanos, long seconds) {
        assertThat(RateLimitDecision.roundUpToSeconds(nanos)).isEqualTo(seconds);
    }

    @Test
    void retryAfterIsTheLongestWaitAmongTheRefusingLimits() {
        Outcome burst = refused(BURST, 200_000_000L);
        Outcome allowedLonger = new Outcome(HOURLY, State.UNSPENT, 10, 3000_000_000_000L, 0, RateLimitDecision.NO_RECEIPT);
        Outcome global = refused(GLOBAL, 41_200_000_000L);

        RateLimitDecision decision = decision(burst, allowedLonger, global);

        assertThat(decision.allowed()).isFalse();
        assertThat(decision.retryAfterNanos()).isEqualTo(41_200_000_000L);
        assertThat(decision.retryAfterSeconds()).isEqualTo(42);
        assertThat(decision.refused()).containsExactly(burst, global);
        assertThat(decision.refuses(0)).isTrue();
        assertThat(decision.refuses(1)).isFalse();
    }

    @Test
    void shadowLimitThatWouldRefuseNeitherRefusesNorDelays() {
        Outcome shadow = refused(BURST, 900 * 1_000_000_000L);
        Outcome hourly = spent(HOURLY, 499, 3600_000_000_000L);
        RateLimitRequest request = request(List.of(BURST, HOURLY), List.of(Kind.SHADOW, Kind.ACQUIRE), 1);

        RateLimitDecision decision = RateLimitDecision.ofArray("p", request, 1, new Outcome[] {shadow, hourly});

        assertThat(decision.allowed()).isTrue();
        assertThat(decision.refuses(0)).isFalse();
        assertThat(decision.refused()).isEmpty();
        assertThat(decision.retryAfterNanos()).isZero();
        assertThat(decision.retryAfterSeconds()).isZero();
    }

    @Test
    void refusingShadowLimitDoesNotDelayARequestRefusedByAnEnforcedOne() {
        Outcome shadow = refused(BURST, 900 * 1_000_000_000L);
        Outcome hourly = refused(HOURLY, 3 * 1_000_000_000L);
        RateLimitRequest request = request(List.of(BURST, HOURLY), List.of(Kind.SHADOW, Kind.ACQUIRE), 1);

        RateLimitDecision decision = RateLimitDecision.ofArray("p", request, 1, new Outcome[] {shadow, hourly});

        assertThat(decision.allowed()).isFalse();
        assertThat(decision.refused()).containsExactly(hourly);
        assertThat(decision.retryAfterSeconds()).isEqualTo(3);
    }

    @Test
    void allowedDecisionHasNoRetryAfterAndNothingRefused() {
        Outcome burst = spent(BURST, 4, 1_000_000_000L);
        RateLimitDecision decision = RateLimitDecision.of("p", request(List.of(BURST), List.of(Kind.ACQUIRE), 1), 1, burst);

        assertThat(decision.allowed()).isTrue();
        assertThat(decision.retryAfterSeconds()).isZero();
        assertThat(decision.refused()).isEmpty();
        assertThat(decision.partition()).isEqualTo("p");
        assertThat(decision.size()).isEqualTo(1);
        assertThat(decision.outcome(0)).isSameAs(burst);
        assertThat(decision.outcomes()).containsExactly(burst);
    }

    @Test
    void decisionNeedsOneOutcomePerLimit() {
        RateLimitRequest two = request(List.of(BURST, HOURLY), List.of(Kind.ACQUIRE, Kind.ACQUIRE), 1);
        RateLimitRequest one = request(List.of(BURST), List.of(Kind.ACQUIRE), 1);

        assertThatIllegalArgumentException().isThrownBy(() -> RateLimitDecision.ofArray("p", two, 1, new Outcome[] {}));
        assertThatIllegalArgumentException().isThrownBy(() -> RateLimitDecision.of("p", two, 1, spent(BURST, 4, 1)))
                .withMessageContaining("had 1");
        assertThatIllegalArgumentException().isThrownBy(() -> RateLimitDecision.of("p", one, 1, (Outcome) null))
                .withMessage("outcome 0 is null");
        RateLimitDecision decision = RateLimitDecision.of("p", two, 1, spent(BURST, 4, 1), spent(HOURLY, 499, 1));

        assertThat(decision.outcomes()).hasSize(2);
        assertThatThrownBy(() -> decision.outcomes().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> decision.outcome(2)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void oneTwoAndThreeOutcomesReadTheSameWhicheverWayTheDecisionWasMade() {
        RateLimitPolicy daily = new RateLimitPolicy("daily", 5000, 86_400);
        Outcome burst = spent(BURST, 4, 1);
        Outcome hourly = spent(HOURLY, 499, 1);
        Outcome day = refused(daily, 3_000_000_000L);
        RateLimitRequest two = request(List.of(BURST, HOURLY), List.of(Kind.ACQUIRE, Kind.ACQUIRE), 1);
        RateLimitRequest three = request(List.of(BURST, HOURLY, daily), List.of(Kind.ACQUIRE, Kind.ACQUIRE, Kind.ACQUIRE), 1);

        for (RateLimitDecision d : List.of(RateLimitDecision.of("p", two, 1, burst, hourly),
                RateLimitDecision.ofArray("p", two, 1, new Outcome[] {burst, hourly}))) {
            assertThat(d.size()).isEqualTo(2);
            assertThat(d.outcome(0)).isSameAs(burst);
            assertThat(d.outcome(1)).isSameAs(hourly);
            assertThat(d.outcomes()).containsExactly(burst, hourly);
            assertThat(d.allowed()).isTrue();
            assertThatThrownBy(() -> d.outcome(2)).isInstanceOf(IndexOutOfBoundsException.class);
        }
        RateLimitDecision d3 = RateLimitDecision.ofArray("p", three, 1, new Outcome[] {burst, hourly, day});
        assertThat(d3.size()).isEqualTo(3);
        assertThat(d3.outcomes()).containsExactly(burst, hourly, day);
        assertThat(d3.allowed()).isFalse();
        assertThat(d3.retryAfterSeconds()).isEqualTo(3);
        assertThatIllegalArgumentException().isThrownBy(() -> RateLimitDecision.of("p", two, 1, burst, null))
                .withMessage("outcome 1 is null");
        assertThatIllegalArgumentException().isThrownBy(() -> RateLimitDecision.of("p", three, 1, burst, hourly))
                .withMessageContaining("had 2");
    }

    @Test
    void multipleMustBeAtLeastOne() {
        RateLimitRequest one = request(List.of(BURST), List.of(Kind.ACQUIRE), 1);

        assertThatIllegalArgumentException().isThrownBy(() -> RateLimitDecision.of("p", one, 0, spent(BURST, 4, 1)))
                .withMessage("multiple must be >= 1, was 0");
    }

    @Test
    void permitsAreTheCostTimesTheMultiple() {
        RateLimitRequest request = request(List.of(BURST), List.of(Kind.ACQUIRE), 3);

        RateLimitDecision decision = RateLimitDecision.of("p", request, 4, spent(BURST, 0, 1));

        assertThat(decision.multiple()).isEqualTo(4);
        assertThat(decision.permits(0)).isEqualTo(12);
        assertThat(decision.request()).isSameAs(request);
    }

    @Test
    void chargeIsNeverARefusal() {
        RateLimitRequest request = request(List.of(BURST), List.of(Kind.CHARGE), 1);

        RateLimitDecision decision = RateLimitDecision.of("p", request, 1, refused(BURST, 1_000_000_000L));

        assertThat(decision.allowed()).isTrue();
        assertThat(decision.refused()).isEmpty();
    }

    @Test
    void outcomeWithoutAResetReportsItsWindow() {
        assertThat(new Outcome(HOURLY, State.UNSPENT, 500, -1, 0, RateLimitDecision.NO_RECEIPT).resetSeconds())
                .isEqualTo(3600);
        assertThat(new Outcome(HOURLY, State.UNSPENT, 500, 1, 0, RateLimitDecision.NO_RECEIPT).resetSeconds())
                .isEqualTo(1);
        assertThat(refused(BURST, 1_500_000_000L).retryAfterSeconds()).isEqualTo(2);
    }

    @Test
    void uncountedOutcomeHasTheWholeLimitAndNothingToGiveBack() {
        Outcome uncounted = Outcome.uncounted(HOURLY);

        assertThat(uncounted).isEqualTo(new Outcome(HOURLY, State.UNCOUNTED, 500, -1, 0, RateLimitDecision.NO_RECEIPT));
        assertThat(uncounted.allowed()).isTrue();
        assertThat(uncounted.spent()).isFalse();
        assertThat(uncounted.resetSeconds()).isEqualTo(3600);
    }

    @Test
    void onlyASpentOutcomeCanBeGivenBackAndOnlyARefusedOneIsNotAllowed() {
        assertThat(spent(BURST, 3, 1).spent()).isTrue();
        assertThat(spent(BURST, 3, 1).allowed()).isTrue();
        assertThat(new Outcome(BURST, State.UNSPENT, 3, 1, 0, RateLimitDecision.NO_RECEIPT).spent()).isFalse();
        assertThat(new Outcome(BURST, State.UNSPENT, 3, 1, 0, RateLimitDecision.NO_RECEIPT).allowed()).isTrue();
        assertThat(refused(BURST, 1).spent()).isFalse();
        assertThat(refused(BURST, 1).allowed()).isFalse();
    }

    @Test
    void exceededExceptionNamesTheRefusingLimitsAndNeedsARefusal() {
        RateLimitDecision refused = decision(
                new Outcome(HOURLY, State.UNSPENT, 3, 5, 0, RateLimitDecision.NO_RECEIPT),
                refused(BURST, 1_500_000_000L));

        RateLimitExceededException e = new RateLimitExceededException(refused);

        assertThat(e.getViolatedPolicies()).containsExactly("burst");
        assertThat(e.getRetryAfterSeconds()).isEqualTo(2);
        assertThat(e.getDecision()).isSameAs(refused);
        assertThat(e.getMessage()).contains("burst");
        assertThat(e.getStackTrace()).isEmpty();
        assertThatIllegalArgumentException().isThrownBy(() -> new RateLimitExceededException(decision(spent(BURST, 4, 1))));
    }

    @Test
    void exceededExceptionListsEveryRefusingLimitInOrder() {
        RateLimitExceededException e = new RateLimitExceededException(decision(
                refused(GLOBAL, 1), new Outcome(HOURLY, State.UNSPENT, 3, 5, 0, RateLimitDecision.NO_RECEIPT),
                refused(BURST, 1)));

        assertThat(e.getViolatedPolicies()).containsExactly("application", "burst");
        assertThatThrownBy(() -> e.getViolatedPolicies().add("x")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void policyOutOfRangeIsRejectedNamingTheMemberAndTheValue() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new RateLimitPolicy("x", 0, 60))
                .withMessage("permitLimit must be >= 1, was 0");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new RateLimitPolicy("x", 1, 0))
                .withMessage("windowSeconds must be between 1 and 31536000, was 0");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new RateLimitPolicy("x", 1, RateLimitPolicy.MAX_WINDOW_SECONDS + 1))
                .withMessage("windowSeconds must be between 1 and 31536000, was 31536001");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new RateLimitPolicy(" ", 1, 60))
                .withMessage("name must be 1-64 characters from [A-Za-z0-9._-], was \" \"");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new RateLimitPolicy("a/b", 1, 60))
                .withMessage("name must be 1-64 characters from [A-Za-z0-9._-], was \"a/b\"");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new RateLimitPolicy(null, 1, 60))
                .withMessage("name must be 1-64 characters from [A-Za-z0-9._-], was null");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new RateLimitPolicy("a".repeat(65), 1, 60))
                .withMessageContaining("was \"" + "a".repeat(65) + "\"");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new RateLimitPolicy("x", 1, 60, null))
                .withMessage("algorithm must not be null");
        assertThat(new RateLimitPolicy("a".repeat(64), Integer.MAX_VALUE, RateLimitPolicy.MAX_WINDOW_SECONDS,
                RateLimitAlgorithm.TOKEN_BUCKET).permitLimit()).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void policyDefaultsToTheSlidingWindowAndComparesBySize() {
        RateLimitPolicy policy = new RateLimitPolicy("burst", 5, 1);

        assertThat(policy.algorithm()).isEqualTo(RateLimitAlgorithm.SLIDING_WINDOW);
        assertThat(policy.windowNanos()).isEqualTo(1_000_000_000L);
        assertThat(new RateLimitPolicy("x", 1, RateLimitPolicy.MAX_WINDOW_SECONDS).windowNanos())
                .isEqualTo(31_536_000_000_000_000L);
        assertThat(policy.with(5, 1, RateLimitAlgorithm.SLIDING_WINDOW)).isSameAs(policy);
        assertThat(policy.with(6, 1, RateLimitAlgorithm.SLIDING_WINDOW))
                .isEqualTo(new RateLimitPolicy("burst", 6, 1));
        assertThat(policy.sameSize(new RateLimitPolicy("other", 5, 1))).isTrue();
        assertThat(policy.sameSize(new RateLimitPolicy("burst", 5, 2))).isFalse();
        assertThat(policy.sameSize(new RateLimitPolicy("burst", 5, 1, RateLimitAlgorithm.STRICT_WINDOW))).isFalse();
        assertThat(policy).hasToString("\"burst\" 5/1s");
        assertThat(new RateLimitPolicy("tb", 5, 1, RateLimitAlgorithm.TOKEN_BUCKET)).hasToString("\"tb\" 5/1s TOKEN_BUCKET");
    }

    // ---------------------------------------------------------------- helpers

    private static RateLimitRequest request(List<RateLimitPolicy> policies, List<Kind> kinds, int cost) {
        RateLimitRequest.Builder builder = RateLimitRequest.builder();
        for (int i = 0; i < policies.size(); i++) {
            RateLimitPolicy p = policies.get(i);
            builder.add(null, new CountKey(p.name(), null, p.algorithm()), p, cost, kinds.get(i));
        }
        return builder.build();
    }

    /** A decision on enforced limits of cost 1, one per outcome. */
    private static RateLimitDecision decision(Outcome... outcomes) {
        List<RateLimitPolicy> policies = new ArrayList<>();
        List<Kind> kinds = new ArrayList<>();
        for (Outcome o : outcomes) {
            policies.add(o.policy());
            kinds.add(Kind.ACQUIRE);
        }
        return RateLimitDecision.ofArray("p", request(policies, kinds, 1), 1, outcomes.clone());
    }

    private static Outcome spent(RateLimitPolicy policy, int remaining, long resetNanos) {
        return new Outcome(policy, State.SPENT, remaining, resetNanos, 0, 7L);
    }

    private static Outcome refused(RateLimitPolicy policy, long waitNanos) {
        return new Outcome(policy, State.REFUSED, 0, waitNanos, waitNanos, RateLimitDecision.NO_RECEIPT);
    }
}
