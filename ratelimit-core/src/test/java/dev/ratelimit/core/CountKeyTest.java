package dev.ratelimit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;

/** Which counts a limit spends from: a (name, plan), with one id per (name, plan) in the JVM. */
class CountKeyTest {

    private static final RateLimitAlgorithm SLIDING = RateLimitAlgorithm.SLIDING_WINDOW;

    @Test
    void keysOfTheSameNameAndPlanHaveTheSameId() {
        assertThat(new CountKey("burst", null, SLIDING).id()).isEqualTo(new CountKey("burst", null, SLIDING).id());
        assertThat(new CountKey("burst", "gold", SLIDING).id()).isEqualTo(new CountKey("burst", "gold", SLIDING).id());
        assertThat(new CountKey("burst", "gold", SLIDING).id())
                .isEqualTo(new CountKey("burst", "gold", RateLimitAlgorithm.TOKEN_BUCKET).id());
    }

    @Test
    void keysOfOtherNamesOrPlansHaveOtherIds() {
        int burst = new CountKey("burst", null, SLIDING).id();
        int burstGold = new CountKey("burst", "gold", SLIDING).id();
        int burstSilver = new CountKey("burst", "silver", SLIDING).id();
        int goldBurst = new CountKey("gold", "burst", SLIDING).id();
        int dotted = new CountKey("burst.gold", null, SLIDING).id();
        int hourly = new CountKey("hourly", null, SLIDING).id();

        assertThat(new int[] {burst, burstGold, burstSilver, goldBurst, dotted, hourly}).doesNotHaveDuplicates();
    }

    @Test
    void sameCountsMeansSameNameAndPlan() {
        CountKey burst = new CountKey("burst", null, SLIDING);

        assertThat(burst.sameCounts(new CountKey("burst", null, RateLimitAlgorithm.STRICT_WINDOW))).isTrue();
        assertThat(burst.sameCounts(new CountKey("burst", "gold", SLIDING))).isFalse();
        assertThat(new CountKey("burst", "gold", SLIDING).sameCounts(new CountKey("burst", "gold", SLIDING))).isTrue();
        assertThat(burst.sameCounts(new CountKey("hourly", null, SLIDING))).isFalse();
    }

    @Test
    void keyKeepsItsNamePlanAndAlgorithm() {
        CountKey key = new CountKey("burst", "gold", RateLimitAlgorithm.TOKEN_BUCKET);

        assertThat(key.name()).isEqualTo("burst");
        assertThat(key.plan()).isEqualTo("gold");
        assertThat(key.algorithm()).isEqualTo(RateLimitAlgorithm.TOKEN_BUCKET);
        assertThat(key).hasToString("burst/gold");
        assertThat(new CountKey("burst", null, SLIDING)).hasToString("burst");
    }

    @Test
    void invalidNameOrPlanIsRejectedNamingTheValue() {
        assertThatIllegalArgumentException().isThrownBy(() -> new CountKey("a/b", null, SLIDING))
                .withMessage("name must be 1-64 characters from [A-Za-z0-9._-], was a/b");
        assertThatIllegalArgumentException().isThrownBy(() -> new CountKey(null, null, SLIDING))
                .withMessageContaining("name");
        assertThatIllegalArgumentException().isThrownBy(() -> new CountKey("burst", "", SLIDING))
                .withMessageStartingWith("plan must be");
        assertThatIllegalArgumentException().isThrownBy(() -> new CountKey("burst", "gold/x", SLIDING))
                .withMessage("plan must be 1-64 characters from [A-Za-z0-9._-], was gold/x");
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> new CountKey("burst", null, null)))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("algorithm");
    }

    @Test
    void aKeyPerAddressOrPerArgumentHasNoPlan() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new CountKey("login-address", "gold", SLIDING, RateLimitPer.ADDRESS, true))
                .withMessageContaining("\"login-address\" are per ADDRESS").withMessageEndingWith("was gold");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new CountKey("login-account", "gold", SLIDING, RateLimitPer.ARGUMENT, true));
        CountKey shared = new CountKey("login-address", null, SLIDING, RateLimitPer.ADDRESS, true);
        assertThat(shared.plan()).isNull();
        assertThat(shared.failuresOnly()).isTrue();
        assertThat(new CountKey("default", "gold", SLIDING, RateLimitPer.CALLER).failuresOnly()).isFalse();
    }
}
