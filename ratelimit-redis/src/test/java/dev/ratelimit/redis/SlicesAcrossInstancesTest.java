package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.testing.ManualClock;
import dev.ratelimit.core.testing.SlicesAcrossInstances;
import dev.ratelimit.redis.testing.CommandStats;
import dev.ratelimit.redis.testing.RedisServerExtension;
import dev.ratelimit.redis.testing.Resp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Slices through two application instances on one real Redis: two engines, each on a store and Lettuce client of its
 * own, as two JVMs would be, on one manual clock ({@link SlicesAcrossInstances}). Never over the limit, every unused
 * permit back after a lease, a dead instance's slice stranded only until the window passes, a reset (published by the
 * script) or a live change reaching the other instance's slices at once, one script call a request for a partition
 * seen once a lease. Calls are Redis' script calls ({@code INFO commandstats}).
 */
class SlicesAcrossInstancesTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private final List<RedisRateLimitStore> stores = new ArrayList<>();
    private final String prefix = "slices-" + UUID.randomUUID() + ":";
    private final ManualClock clock = new ManualClock();
    private final SlicesAcrossInstances slices = new SlicesAcrossInstances(i -> store(), clock,
            SlicesAcrossInstancesTest::scriptCalls, Duration.ofSeconds(5));

    @AfterEach
    void close() {
        stores.forEach(RedisRateLimitStore::close);
    }

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
    void aPartitionSeenOnceALeaseCostsOneScriptCallARequest() throws Exception {
        slices.aPartitionSeenOnceALeaseCostsOneStoreCallARequest();
    }

    /** A store of one more instance, on a Lettuce client of its own, connected, counting on the manual clock. */
    private RedisRateLimitStore store() {
        RedisRateLimitStore store = RedisRateLimitStore.builder(REDIS.uri()).keyPrefix(prefix)
                .timeout(Duration.ofSeconds(5)).nanoClock(clock).build();
        stores.add(store);
        assertThat(store.awaitConnection(Duration.ofSeconds(10))).isTrue();
        return store;
    }

    /** Script calls Redis has run so far, from every instance. */
    private static long scriptCalls() {
        try (Resp resp = REDIS.client()) {
            return CommandStats.of(resp).scriptCalls();
        }
    }
}
