package dev.ratelimit.jcache;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.testing.ManualClock;
import dev.ratelimit.core.testing.SlicesAcrossInstances;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Slices through two application instances on one Hazelcast cluster: two real members, each with an engine on a store
 * and cache manager of its own, as two JVMs would have, on one manual clock ({@link SlicesAcrossInstances}). Never over
 * the limit, every unused permit back after a lease, a dead instance's slice stranded only until the window passes, a
 * reset (announced to every instance) or a live change reaching the other instance's slices at once, one grid call a
 * request for a partition seen once a lease. Calls to the grid are counted on the way to it ({@link CountingCache}).
 */
class SlicesAcrossInstancesTest {

    @RegisterExtension
    static final TwoMembers GRID = new TwoMembers();

    private final String cache = "slices-" + UUID.randomUUID();
    private final List<CountingCache> counted = new ArrayList<>();
    private final ManualClock clock = new ManualClock();
    /** 30 s for the grid to answer. */
    private final SlicesAcrossInstances slices = new SlicesAcrossInstances(this::store, clock,
            () -> counted.stream().mapToLong(CountingCache::calls).sum(), Duration.ofSeconds(30));

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
    void aPartitionSeenOnceALeaseCostsOneGridCallARequest() throws Exception {
        slices.aPartitionSeenOnceALeaseCostsOneStoreCallARequest();
    }

    /** The store of instance {@code i}: on member {@code i}, its own cache manager, its calls counted, the manual clock. */
    private JCacheRateLimitStore store(int i) {
        CountingCache counts = new CountingCache(TwoMembers.counts(GRID.newManager(i), cache));
        counted.add(counts);
        return GRID.closing(JCacheRateLimitStore.builder(counts.cache()).nanoClock(clock).build());
    }
}
