package dev.ratelimit.core.engine;

import static dev.ratelimit.core.testing.EngineFixtures.beanMethod;
import static dev.ratelimit.core.testing.EngineFixtures.decideNow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitMode;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.binding.BoundForTests;
import dev.ratelimit.core.binding.BoundKey;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.core.testing.ManualClock;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What one request decided: the headline and the reported limits (the rate-limit headers), the refusal, the give-back
 * (once), and the claims that make a call site decided once per request.
 */
class RequestLedgerTest {

    private static final long SECOND = 1_000_000_000L;

    private static final RateLimitPolicy GLOBAL = new RateLimitPolicy("application", 1000, 60);
    private static final RateLimitPolicy BURST = new RateLimitPolicy("burst", 5, 1);
    private static final RateLimitPolicy HOURLY = new RateLimitPolicy("hourly", 500, 3600);
    private static final RateLimitPolicy DELETE = new RateLimitPolicy("delete", 2, 60);
    private static final RateLimitPolicy EXPORT = new RateLimitPolicy("export", 1, 10);
    private static final RateLimitPolicy ITEMS = new RateLimitPolicy("items", 50, 60);

    private final RateLimitEngine engine = RateLimitEngine.builder(RateLimitSettings.of(Map.of()),
            new InProcessRateLimitStore(10, new ManualClock())).build();
    private final RequestLedger ledger = engine.ledger("sub:alice");

    @Test
    void emptyLedgerHasNoHeadlineNothingReportedAndNoRefusal() {
        assertThat(ledger.headline()).isNull();
        assertThat(ledger.headline()).isNull();
        assertThat(ledger.reported()).isEmpty();
        assertThat(ledger.refusal()).isNull();
        assertThat(ledger.partition()).isEqualTo("sub:alice");
        assertThat(ledger.takeForRelease()).isEmpty();
    }

    @Test
    void allowedRequestReportsEveryLimitInDecisionOrderWithTheLastOneAsHeadline() {
        Outcome global = spent(GLOBAL, 999, 60 * SECOND);
        Outcome burst = spent(BURST, 4, SECOND);
        Outcome hourly = spent(HOURLY, 499, 3600 * SECOND);
        Outcome delete = spent(DELETE, 1, 60 * SECOND);
        record(acquire(global), acquire(burst), acquire(hourly));
        record(acquire(delete));

        assertThat(ledger.refusal()).isNull();
        assertThat(ledger.reported()).containsExactly(global, burst, hourly, delete);
        assertThat(ledger.headline()).isSameAs(delete);
    }

    @Test
    void uncountedLimitIsReportedWithItsWholeLimit() {
        Outcome uncounted = Outcome.uncounted(BURST);
        record(acquire(uncounted));

        assertThat(ledger.headline()).isSameAs(uncounted);
        assertThat(ledger.headline().remaining()).isEqualTo(5);
        assertThat(ledger.headline().resetSeconds()).isEqualTo(1);
    }

    @Test
    void refusingLimitIsReportedLastAndIsTheHeadline() {
        Outcome global = notSpent(GLOBAL, 998, 60 * SECOND);
        Outcome burst = refused(BURST, 300_000_000L);
        Outcome hourly = notSpent(HOURLY, 497, 3600 * SECOND);
        RateLimitDecision refusal = record(acquire(global), acquire(burst), acquire(hourly));

        assertThat(ledger.refusal()).isSameAs(refusal);
        assertThat(ledger.headline()).isSameAs(burst);
        assertThat(ledger.reported()).containsExactly(global, hourly, burst);
    }

    @Test
    void whenSeveralLimitsRefuseTheLongestWaitIsTheHeadlineAndComesLast() {
        Outcome burst = refused(BURST, 300_000_000L);
        Outcome hourly = refused(HOURLY, 1800 * SECOND);
        Outcome global = refused(GLOBAL, 42 * SECOND);
        Outcome delete = notSpent(DELETE, 1, 60 * SECOND);
        record(acquire(global), acquire(hourly), acquire(delete), acquire(burst));

        assertThat(ledger.headline()).isSameAs(hourly);
        assertThat(ledger.reported()).containsExactly(delete, global, burst, hourly);
        assertThat(ledger.refusal().retryAfterSeconds()).isEqualTo(1800);
    }

    @Test
    void permitsSpentBeforeTheRefusalAreReportedAsGivenBack() {
        Outcome global = spent(GLOBAL, 990, 60 * SECOND);
        Outcome export = refused(EXPORT, 7 * SECOND);
        record(acquire(global));
        record(acquire(export));

        List<Outcome> reported = ledger.reported();

        assertThat(reported).hasSize(2);
        assertThat(reported.get(0)).isEqualTo(new Outcome(GLOBAL, State.UNSPENT, 991, 60 * SECOND, 0,
                RateLimitDecision.NO_RECEIPT));
        assertThat(reported.get(0).spent()).isFalse();
        assertThat(reported.get(1)).isSameAs(export);
        assertThat(ledger.headline()).isSameAs(export);
    }

    @Test
    void givenBackReportReturnsTheCostTimesTheMultiple() {
        record(3, cost(4, spent(ITEMS, 20, 60 * SECOND)));
        record(1, acquire(refused(EXPORT, 7 * SECOND)));

        assertThat(ledger.reported().get(0).remaining()).isEqualTo(32);
    }

    @Test
    void chargeBeforeTheRefusalStaysSpentInTheReport() {
        Outcome charged = spent(ITEMS, 0, 60 * SECOND);
        record(3, charge(charged));
        record(1, acquire(refused(EXPORT, 7 * SECOND)));

        assertThat(ledger.reported().get(0)).isSameAs(charged);
    }

    @Test
    void shadowLimitsAreNeitherReportedNorTheHeadline() {
        Outcome global = spent(GLOBAL, 999, 60 * SECOND);
        Outcome burst = spent(BURST, 4, SECOND);
        record(acquire(global), shadow(burst));

        assertThat(ledger.reported()).containsExactly(global);
        assertThat(ledger.headline()).isSameAs(global);
    }

    @Test
    void shadowLimitsOfARefusedRequestAreNotReported() {
        Outcome earlierShadow = spent(DELETE, 1, 60 * SECOND);
        Outcome shadowRefusing = refused(BURST, SECOND);
        Outcome hourly = refused(HOURLY, 60 * SECOND);
        record(shadow(earlierShadow));
        record(shadow(shadowRefusing), acquire(hourly));

        assertThat(ledger.reported()).containsExactly(hourly);
        assertThat(ledger.headline()).isSameAs(hourly);
    }

    @Test
    void ledgerOfShadowLimitsOnlyHasNothingToReport() {
        record(shadow(spent(BURST, 4, SECOND)));
        record(shadow(refused(HOURLY, SECOND)));

        assertThat(ledger.refusal()).isNull();
        assertThat(ledger.headline()).isNull();
        assertThat(ledger.reported()).isEmpty();
        assertThat(ledger.takeForRelease()).as("both decisions are recorded, and allowed").hasSize(2);
    }

    @Test
    void limitReachedTwiceIsReportedOnceAsItStoodLast() {
        Outcome first = spent(ITEMS, 40, 60 * SECOND);
        Outcome global = spent(GLOBAL, 999, 60 * SECOND);
        Outcome second = spent(ITEMS, 30, 60 * SECOND);
        record(acquire(first));
        record(acquire(global));
        record(acquire(second));

        assertThat(ledger.reported()).containsExactly(global, second);
        assertThat(ledger.headline()).isSameAs(second);
    }

    @Test
    void limitGivenBackAndRefusedInOneRequestIsReportedOnceAsTheRefusal() {
        record(acquire(spent(EXPORT, 0, 10 * SECOND)));
        Outcome refusal = refused(EXPORT, 10 * SECOND);
        record(acquire(refusal));

        assertThat(ledger.reported()).containsExactly(refusal);
    }

    @Test
    void firstRefusalStaysTheRequestsRefusal() {
        RateLimitDecision first = record(acquire(refused(BURST, SECOND)));
        RateLimitDecision second = record(acquire(refused(EXPORT, 9 * SECOND)));

        assertThat(ledger.refusal()).isSameAs(first).isNotSameAs(second);
        assertThat(ledger.headline()).isSameAs(first.outcome(0));
        assertThat(ledger.reported()).containsExactly(first.outcome(0));
    }

    @Test
    void shadowRefusalIsNotTheRequestsRefusal() {
        record(shadow(refused(BURST, SECOND)), acquire(spent(HOURLY, 10, SECOND)));

        assertThat(ledger.refusal()).isNull();
    }

    @Test
    void everyAllowedDecisionIsTakenForReleaseOnce() {
        RateLimitDecision transport = record(acquire(spent(GLOBAL, 999, 60 * SECOND)));
        RateLimitDecision principal = record(acquire(spent(DELETE, 1, 60 * SECOND)));
        record(acquire(refused(EXPORT, 9 * SECOND)));

        assertThat(ledger.takeForRelease()).containsExactly(transport, principal);
        assertThat(ledger.takeForRelease()).isEmpty();
    }

    @Test
    void ledgerWithNothingSpentTakesNothingForRelease() {
        record(acquire(refused(BURST, SECOND)), acquire(notSpent(HOURLY, 400, 60 * SECOND)));

        assertThat(ledger.takeForRelease()).isEmpty();
    }

    @Test
    void decisionsAfterTheSecondKeepTheirOrderTheFirstRefusalAndTheGiveBack() {
        RateLimitDecision transport = record(acquire(spent(GLOBAL, 999, 60 * SECOND)));
        RateLimitDecision principal = record(acquire(spent(DELETE, 1, 60 * SECOND)));
        RateLimitDecision bean = record(acquire(spent(ITEMS, 49, 60 * SECOND)));
        RateLimitDecision waited = record(acquire(spent(HOURLY, 499, 3600 * SECOND)));
        RateLimitDecision refusal = record(acquire(refused(EXPORT, 9 * SECOND)));
        record(acquire(refused(BURST, SECOND)));

        assertThat(ledger.refusal()).isSameAs(refusal);
        assertThat(ledger.headline()).isSameAs(refusal.outcome(0));
        assertThat(ledger.reported()).last().isSameAs(refusal.outcome(0));
        assertThat(ledger.forget(waited)).isTrue();
        assertThat(ledger.forget(waited)).isFalse();
        assertThat(ledger.takeForRelease()).containsExactly(transport, principal, bean);
        assertThat(ledger.forget(bean)).isFalse(); // given back with the request already
        assertThat(ledger.takeForRelease()).isEmpty();
    }

    @Test
    void eachCallSiteIsClaimedOncePerRequest() {
        BoundLimits transport = BoundForTests.callSite("transport");
        BoundLimits principal = BoundForTests.callSite("principal");
        BoundLimits third = BoundForTests.callSite("third");

        assertThat(ledger.claim(transport)).isTrue();
        assertThat(ledger.claim(transport)).isFalse();
        assertThat(ledger.claim(principal)).isTrue();
        assertThat(ledger.claim(principal)).isFalse();
        assertThat(ledger.claim(third)).isTrue();
        assertThat(ledger.claim(transport)).isFalse();
        assertThat(ledger.claim(third)).isFalse();
        assertThat(engine.ledger("sub:alice").claim(transport)).isTrue();
    }

    @Test
    void recognisesItsResourceMethodOnly() throws Exception {
        Method create = Fixture.class.getDeclaredMethod("create");
        Method sameMethodOtherObject = Fixture.class.getDeclaredMethod("create");
        Method export = Fixture.class.getDeclaredMethod("export");
        RequestLedger request = engine.ledger(TestCaller.anonymous(), create);

        assertThat(request.isResourceMethod(create)).isTrue();
        assertThat(request.isResourceMethod(sameMethodOtherObject)).isTrue();
        assertThat(request.isResourceMethod(export)).isFalse();
        assertThat(ledger.isResourceMethod(create)).isFalse();
    }

    @Test
    void partitionIsChosenOnceWhenTheLedgerIsMade() {
        AtomicInteger asked = new AtomicInteger();
        RateLimitEngine counting = RateLimitEngine.builder(RateLimitSettings.of(Map.of()),
                new InProcessRateLimitStore(10, new ManualClock())).partitioner(caller -> {
                    asked.incrementAndGet();
                    return "tenant:" + caller.header("X-Tenant");
                }).build();
        BoundLimits limits = counting.binder().bind(beanMethod("TodoResource.all()", RateLimitEngineTest.limit("default", 3, 60)));
        BoundLimits bean = counting.binder().bind(beanMethod("ExportService.export()", RateLimitEngineTest.limit("export", 3, 60)));

        RequestLedger request = counting.ledger(TestCaller.withHeader("x-tenant", "acme"), null);
        decideNow(counting, request, limits);
        decideNow(counting, request, bean);
        decideNow(counting, request, bean);

        assertThat(asked).hasValue(1);
        assertThat(request.partition()).isEqualTo("tenant:acme");
        assertThat(request.refusal()).isNull();
    }

    // ---------------------------------------------------------------- helpers

    /** One limit of a recorded decision: its outcome, how it spends, its cost. */
    private record Part(Outcome outcome, Kind kind, int cost) {
    }

    private static Part acquire(Outcome outcome) {
        return new Part(outcome, Kind.ACQUIRE, 1);
    }

    private static Part shadow(Outcome outcome) {
        return new Part(outcome, Kind.SHADOW, 1);
    }

    private static Part charge(Outcome outcome) {
        return new Part(outcome, Kind.CHARGE, 1);
    }

    private static Part cost(int cost, Outcome outcome) {
        return new Part(outcome, Kind.ACQUIRE, cost);
    }

    private RateLimitDecision record(Part... parts) {
        return record(1, parts);
    }

    /** Records a decision of these limits in the ledger, as the engine would after the store decided. */
    private RateLimitDecision record(int multiple, Part... parts) {
        RateLimitRequest.Builder request = RateLimitRequest.builder();
        BoundKey[] keys = new BoundKey[parts.length];
        Outcome[] outcomes = new Outcome[parts.length];
        for (int i = 0; i < parts.length; i++) {
            RateLimitPolicy policy = parts[i].outcome().policy();
            CountKey key = new CountKey(policy.name(), null, policy.algorithm());
            request.add(null, key, policy, parts[i].cost(), parts[i].kind());
            keys[i] = BoundForTests.key(key, parts[i].kind() == Kind.SHADOW ? RateLimitMode.SHADOW : RateLimitMode.ENFORCE);
            outcomes[i] = parts[i].outcome();
        }
        RateLimitDecision decision = RateLimitDecision.ofArray(ledger.partition(), request.build(), multiple, outcomes.clone());
        ledger.record(decision, BoundForTests.part(request.build(), keys, null, true), null);
        return decision;
    }

    private static Outcome spent(RateLimitPolicy policy, int remaining, long resetNanos) {
        return new Outcome(policy, State.SPENT, remaining, resetNanos, 0, 1_000L);
    }

    private static Outcome notSpent(RateLimitPolicy policy, int remaining, long resetNanos) {
        return new Outcome(policy, State.UNSPENT, remaining, resetNanos, 0, RateLimitDecision.NO_RECEIPT);
    }

    private static Outcome refused(RateLimitPolicy policy, long waitNanos) {
        return new Outcome(policy, State.REFUSED, 0, waitNanos, waitNanos, RateLimitDecision.NO_RECEIPT);
    }

    static final class Fixture {
        void create() {
        }

        void export() {
        }
    }
}
