package dev.ratelimit.core.guard;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.testing.ManualClock;
import dev.ratelimit.core.testing.SharedMapStore;
import dev.ratelimit.core.testing.SlicesAcrossInstances;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Slices through two instances on a shared store of the core's own arithmetic ({@link SharedMapStore}): the scenarios
 * Redis and JCache run too ({@link SlicesAcrossInstances}).
 */
class SlicesAcrossInstancesTest {

    private final ManualClock clock = new ManualClock();
    private final SharedMapStore shared = new SharedMapStore(clock);
    private final SlicesAcrossInstances slices = new SlicesAcrossInstances(i -> shared.instance(), clock, shared::calls,
            Duration.ofSeconds(5));

    @Test
    void twoThousandConcurrentRequestsUnderOneHundredAdmitAtMostOneHundredAndEveryUnusedPermitComesBack()
            throws Exception {
        slices.twoThousandConcurrentRequestsUnderOneHundredAdmitAtMostOneHundredAndEveryUnusedPermitComesBack();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(RateLimitAlgorithm.class)
    void theDensestSpanThroughTwoInstancesStaysWithinEachAlgorithmsBound(RateLimitAlgorithm algorithm) throws Exception {
        slices.theDensestSpanThroughTwoInstancesStaysWithinEachAlgorithmsBound(algorithm);
    }

    @Test
    void anInstanceKilledHoldingASliceStrandsItOnlyUntilTheWindowPasses() throws Exception {
        slices.anInstanceKilledHoldingASliceStrandsItOnlyUntilTheWindowPasses();
    }

    @Test
    void anAdminResetOnOneInstanceDropsTheOthersSlicesAtOnce() throws Exception {
        slices.anAdminResetOnOneInstanceDropsTheOthersSlicesAtOnce();
    }

    @Test
    void aLiveChangeGivesTheSlicesBackAtOnce() throws Exception {
        slices.aLiveChangeGivesTheSlicesBackAtOnce();
    }

    @Test
    void aPartitionSeenOnceALeaseCostsOneStoreCallARequest() throws Exception {
        slices.aPartitionSeenOnceALeaseCostsOneStoreCallARequest();
    }
}
