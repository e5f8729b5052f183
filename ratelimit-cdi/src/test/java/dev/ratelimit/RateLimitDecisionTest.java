package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.RateLimitDecision.Outcome;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The decision value and the policy value: rounding, refusal summary, validation. */
class RateLimitDecisionTest {

    private static final RateLimitPolicy BURST = new RateLimitPolicy("burst", 5, 1, RateLimitScope.TRANSPORT);
    private static final RateLimitPolicy HOURLY = new RateLimitPolicy("hourly", 500, 3600, RateLimitScope.TRANSPORT);

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
        Outcome allowedLonger = new Outcome(HOURLY, true, 10, 3000_000_000_000L, RateLimitDecision.NO_RECEIPT);
        Outcome burst = new Outcome(BURST, false, 0, 200_000_000L, RateLimitDecision.NO_RECEIPT);
        Outcome hourly = new Outcome(HOURLY, false, 0, 41_200_000_000L, RateLimitDecision.NO_RECEIPT);

        RateLimitDecision decision = new RateLimitDecision("p", List.of(burst, allowedLonger, hourly));

        assertThat(decision.allowed()).isFalse();
        assertThat(decision.retryAfterSeconds()).isEqualTo(42);
        assertThat(decision.refused()).containsExactly(burst, hourly);
    }

    @Test
    void allowedDecisionHasNoRetryAfterAndNothingRefused() {
        RateLimitDecision decision = RateLimitDecision.of("p", new Outcome(BURST, true, 4, 1_000_000_000L, 7L));

        assertThat(decision.allowed()).isTrue();
        assertThat(decision.retryAfterSeconds()).isZero();
        assertThat(decision.refused()).isEmpty();
        assertThat(decision.partition()).isEqualTo("p");
    }

    @Test
    void decisionNeedsAnOutcomeAndKeepsItsOwnCopy() {
        assertThatIllegalArgumentException().isThrownBy(() -> new RateLimitDecision("p", List.of()));
        List<Outcome> outcomes = new ArrayList<>(List.of(new Outcome(BURST, true, 4, 1, 7L)));
        RateLimitDecision decision = new RateLimitDecision("p", outcomes);
        outcomes.clear();

        assertThat(decision.outcomes()).hasSize(1);
        assertThatThrownBy(() -> decision.outcomes().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void outcomeWithoutAResetReportsItsWindow() {
        assertThat(new Outcome(HOURLY, true, 500, -1, RateLimitDecision.NO_RECEIPT).resetSeconds()).isEqualTo(3600);
    }

    @Test
    void givenBackOutcomeHasOneMoreRemainingAndNothingLeftToGiveBack() {
        Outcome spent = new Outcome(BURST, true, 3, 900_000_000L, 12_345L);
        assertThat(spent.spent()).isTrue();

        Outcome back = spent.givenBack();

        assertThat(back).isEqualTo(new Outcome(BURST, true, 4, 900_000_000L, RateLimitDecision.NO_RECEIPT));
        assertThat(back.spent()).isFalse();
        assertThat(new Outcome(BURST, false, 0, 1, 12_345L).spent()).isFalse();
    }

    @Test
    void exceededExceptionNamesTheRefusingLimitsAndNeedsARefusal() {
        RateLimitDecision refused = new RateLimitDecision("p", List.of(
                new Outcome(HOURLY, true, 3, 5, RateLimitDecision.NO_RECEIPT),
                new Outcome(BURST, false, 0, 1_500_000_000L, RateLimitDecision.NO_RECEIPT)));

        RateLimitExceededException e = new RateLimitExceededException(refused);

        assertThat(e.getViolatedPolicies()).containsExactly("burst");
        assertThat(e.getRetryAfterSeconds()).isEqualTo(2);
        assertThat(e.getDecision()).isSameAs(refused);
        assertThat(e.getMessage()).contains("burst");
        assertThat(e.getStackTrace()).isEmpty();
        assertThatIllegalArgumentException().isThrownBy(() -> new RateLimitExceededException(
                RateLimitDecision.of("p", new Outcome(BURST, true, 4, 1, 1L))));
    }

    @Test
    void policyOutOfRangeIsRejectedNamingTheMemberAndTheValue() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new RateLimitPolicy("x", 0, 60, RateLimitScope.TRANSPORT))
                .withMessage("permitLimit must be >= 1, was 0");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new RateLimitPolicy("x", 1, 0, RateLimitScope.TRANSPORT))
                .withMessage("windowSeconds must be between 1 and 31536000, was 0");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new RateLimitPolicy("x", 1, RateLimitPolicy.MAX_WINDOW_SECONDS + 1,
                        RateLimitScope.TRANSPORT))
                .withMessage("windowSeconds must be between 1 and 31536000, was 31536001");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new RateLimitPolicy(" ", 1, 60, RateLimitScope.TRANSPORT))
                .withMessage("name must be 1-64 characters from [A-Za-z0-9._-], was \" \"");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new RateLimitPolicy("a".repeat(65), 1, 60, RateLimitScope.TRANSPORT))
                .withMessageContaining("was \"" + "a".repeat(65) + "\"");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new RateLimitPolicy("x", 1, 60, null))
                .withMessage("scope must not be null");
        assertThat(new RateLimitPolicy("a".repeat(64), Integer.MAX_VALUE, RateLimitPolicy.MAX_WINDOW_SECONDS,
                RateLimitScope.PRINCIPAL).permitLimit()).isEqualTo(Integer.MAX_VALUE);
    }
}
