package dev.ratelimit.jcache;

import dev.ratelimit.core.testing.TwoInstances;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One count shared by two application instances on two real Hazelcast members (each with an engine on a store and
 * cache manager of its own, as two JVMs would have), in both ways the store changes a count (an entry processor, or
 * compare-and-set): give-backs racing acquires leave exactly what was admitted and not given back, and never admit
 * more than the limit at once; a limit per argument counts one username as one count through either instance, when
 * both have the same {@code ratelimit.key-secret} (docs/login-protection.md).
 */
class CountsAcrossInstancesTest {

    @RegisterExtension
    static final TwoMembers GRID = new TwoMembers();

    private final String cache = "counts-" + UUID.randomUUID();

    @ParameterizedTest
    @EnumSource(value = JCacheRateLimitStore.Mode.class, names = {"PROCESSOR", "COMPARE_AND_SET"})
    void giveBacksRacingAcquiresOnTwoInstancesLeaveExactlyTheAdmittedNotGivenBackAndNeverAdmitOverTheLimit(
            JCacheRateLimitStore.Mode mode) throws Exception {
        instances(mode).giveBacksRacingAcquiresLeaveExactlyTheAdmittedNotGivenBack(40, 180, 60);
    }

    @ParameterizedTest
    @EnumSource(value = JCacheRateLimitStore.Mode.class, names = {"PROCESSOR", "COMPARE_AND_SET"})
    void aLimitPerArgumentCountsOneUsernameOnceThroughBothInstances(JCacheRateLimitStore.Mode mode) {
        instances(mode).aLimitPerArgumentCountsOneUsernameOnceThroughBothInstances();
    }

    /** Instance {@code i} on member {@code i}, through a cache manager of its own; 30 s for the grid to answer. */
    private TwoInstances instances(JCacheRateLimitStore.Mode mode) {
        return new TwoInstances(i -> GRID.closing(JCacheRateLimitStore.builder(
                TwoMembers.counts(GRID.newManager(i), cache)).mode(mode).build()), Duration.ofSeconds(30));
    }
}
