package dev.ratelimit.jcache;

import com.hazelcast.core.HazelcastInstance;
import dev.ratelimit.core.testing.RefusalsAcrossInstances;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Refusals answered at home by two application instances on one Hazelcast cluster: two real members, each with an
 * engine on a store and cache manager of its own, as two JVMs would have ({@link RefusalsAcrossInstances}). A flood of
 * one caller costs about one call to the grid per instance; a reset, a give-back (a refused request's, or a success
 * of a limit that counts only failures) on one instance, or a raised limit applied live on both, lets the caller
 * remembered on the other in at once; a member that leaves makes every instance forget; counts stay exact. Calls to
 * the grid are counted on the way to it ({@link CountingCache}).
 */
class RefusalsAcrossInstancesTest {

    @RegisterExtension
    static final TwoMembers GRID = new TwoMembers();

    private final String cache = "across-" + UUID.randomUUID();
    private final List<CountingCache> counted = new ArrayList<>();
    /** 30 s for the grid to answer. */
    private final RefusalsAcrossInstances refusals = new RefusalsAcrossInstances(this::store,
            () -> counted.stream().mapToLong(CountingCache::calls).sum(), Duration.ofSeconds(30));

    @Test
    void aFloodFromOneCallerCostsAtMostOneGridCallPerInstanceAndIsAnsweredAsTheStoreWould() throws Exception {
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
    void aMemberThatLeavesMakesEveryInstanceAskTheGridAgain() throws Exception {
        refusals.afterwardsARefusedRequestAsksTheStoreAgain(() -> {
            HazelcastInstance third = GRID.cluster().add();
            third.getLifecycleService().terminate();
            return GRID.cluster().members().remove(third);
        });
    }

    @Test
    void twoHundredConcurrentRequestsThroughTwoInstancesUnderALimitOfOneHundredAdmitExactlyOneHundred() throws Exception {
        refusals.twoHundredConcurrentRequestsThroughTwoInstancesUnderALimitOfOneHundredAdmitExactlyOneHundred();
    }

    /** The store of instance {@code i}: on member {@code i}, through a cache manager of its own, its calls counted. */
    private JCacheRateLimitStore store(int i) {
        CountingCache counts = new CountingCache(TwoMembers.counts(GRID.newManager(i), cache));
        counted.add(counts);
        return GRID.closing(JCacheRateLimitStore.builder(counts.cache()).build());
    }
}
