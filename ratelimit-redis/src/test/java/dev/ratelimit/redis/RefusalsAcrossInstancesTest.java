package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.testing.RefusalsAcrossInstances;
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

/**
 * Refusals answered at home by two application instances on one real Redis: two engines, each on a store
 * and Lettuce client of its own, as two JVMs would be ({@link RefusalsAcrossInstances}). A flood of one caller costs
 * about one script call per instance; a reset, a give-back (a refused request's, or a success of a limit that counts
 * only failures) or a raised limit on one lets the remembered caller in on the other at once; counts stay exact.
 * Calls are Redis' script calls ({@code INFO commandstats}).
 */
class RefusalsAcrossInstancesTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private final List<RedisRateLimitStore> stores = new ArrayList<>();
    private final String prefix = "across-" + UUID.randomUUID() + ":";
    /** 5 s for Redis to answer. */
    private final RefusalsAcrossInstances refusals = new RefusalsAcrossInstances(i -> store(),
            RefusalsAcrossInstancesTest::scriptCalls, Duration.ofSeconds(5));

    @AfterEach
    void close() {
        stores.forEach(RedisRateLimitStore::close);
    }

    @Test
    void aFloodFromOneCallerCostsAtMostOneScriptCallPerInstanceAndIsAnsweredAsTheStoreWould() throws Exception {
        refusals.aFloodFromOneCallerCostsAtMostOneCallPerInstanceAndIsAnsweredAsTheStoreWould();
    }

    @Test
    void anAdminResetOnOneInstanceLetsTheCallerInOnTheOtherAtOnce() throws Exception {
        refusals.anAdminResetOnOneInstanceLetsTheCallerInOnTheOtherAtOnce();
    }

    @Test
    void aGiveBackThroughOneInstanceLetsARememberedCallerInOnTheOtherAtOnce() throws Exception {
        refusals.aGiveBackThroughOneInstanceLetsARememberedCallerInOnTheOtherAtOnce();
    }

    @Test
    void aSuccessCountingOnlyFailuresOnOneInstanceLetsTheCallerRememberedOnTheOtherInAtOnce() throws Exception {
        refusals.aSuccessCountingOnlyFailuresOnOneInstanceLetsTheCallerRememberedOnTheOtherInAtOnce();
    }

    @Test
    void aRaisedLimitAppliedLiveOnBothInstancesLetsTheCallerRememberedOnTheOtherInAtOnce() throws Exception {
        refusals.aRaisedLimitAppliedLiveOnBothInstancesLetsTheCallerRememberedOnTheOtherInAtOnce();
    }

    @Test
    void twoHundredConcurrentRequestsThroughTwoInstancesUnderALimitOfOneHundredAdmitExactlyOneHundred() throws Exception {
        refusals.twoHundredConcurrentRequestsThroughTwoInstancesUnderALimitOfOneHundredAdmitExactlyOneHundred();
    }

    /** A store of one more instance, on a Lettuce client of its own, connected. */
    private RedisRateLimitStore store() {
        RedisRateLimitStore store = RedisRateLimitStore.builder(REDIS.uri()).keyPrefix(prefix)
                .timeout(Duration.ofSeconds(5)).build();
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
