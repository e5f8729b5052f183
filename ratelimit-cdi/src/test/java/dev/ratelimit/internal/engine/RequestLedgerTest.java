package dev.ratelimit.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitDecision.Outcome;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitScope;
import dev.ratelimit.RateLimitStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

class RequestLedgerTest {

    private static final long SECOND = 1_000_000_000L;

    private static final RateLimitPolicy GLOBAL = policy("application", 1000, 60, RateLimitScope.TRANSPORT);
    private static final RateLimitPolicy BURST = policy("burst", 5, 1, RateLimitScope.TRANSPORT);
    private static final RateLimitPolicy HOURLY = policy("hourly", 500, 3600, RateLimitScope.TRANSPORT);
    private static final RateLimitPolicy DELETE = policy("delete", 2, 60, RateLimitScope.PRINCIPAL);
    private static final RateLimitPolicy EXPORT = policy("export", 1, 10, RateLimitScope.TRANSPORT);

    private final RecordingStore store = new RecordingStore();
    private final RequestLedger ledger = new RequestLedger("sub:alice", "TodoResource.create");

    @Test
    void emptyLedgerHasNoHeadlineNothingReportedAndNoRefusal() {
        assertThat(ledger.isEmpty()).isTrue();
        assertThat(ledger.headline()).isNull();
        assertThat(ledger.reported()).isEmpty();
        assertThat(ledger.refusal()).isNull();
        assertThat(ledger.partition()).isEqualTo("sub:alice");
    }

    @Test
    void allowedRequestReportsEveryLimitInDecisionOrderWithTheLastOneAsHeadline() {
        Outcome global = spent(GLOBAL, 999, 60 * SECOND);
        Outcome burst = spent(BURST, 4, SECOND);
        Outcome hourly = spent(HOURLY, 499, 3600 * SECOND);
        Outcome delete = spent(DELETE, 1, 60 * SECOND);
        ledger.record(decision(global, burst, hourly));
        ledger.record(decision(delete));

        assertThat(ledger.isEmpty()).isFalse();
        assertThat(ledger.refusal()).isNull();
        assertThat(ledger.reported()).containsExactly(global, burst, hourly, delete);
        assertThat(ledger.headline()).isSameAs(delete);
    }

    @Test
    void refusingLimitIsReportedLastAndIsTheHeadline() {
        Outcome global = notSpent(GLOBAL, 998, 60 * SECOND);
        Outcome burst = refused(BURST, 300_000_000L);
        Outcome hourly = notSpent(HOURLY, 497, 3600 * SECOND);
        RateLimitDecision refusal = decision(global, burst, hourly);
        ledger.record(refusal);

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
        ledger.record(decision(global, hourly, delete, burst));

        assertThat(ledger.headline()).isSameAs(hourly);
        assertThat(ledger.reported()).containsExactly(delete, global, burst, hourly);
        assertThat(ledger.refusal().retryAfterSeconds()).isEqualTo(1800);
    }

    @Test
    void permitsSpentBeforeTheRefusalAreReportedAsGivenBack() {
        Outcome global = spent(GLOBAL, 990, 60 * SECOND);
        RateLimitDecision earlier = decision(global);
        Outcome export = refused(EXPORT, 7 * SECOND);
        ledger.record(earlier);
        ledger.record(decision(export));

        List<Outcome> reported = ledger.reported();

        assertThat(reported).hasSize(2);
        assertThat(reported.get(0).policy()).isSameAs(GLOBAL);
        assertThat(reported.get(0).remaining()).isEqualTo(991);
        assertThat(reported.get(0).spent()).isFalse();
        assertThat(reported.get(1)).isSameAs(export);
        assertThat(ledger.headline()).isSameAs(export);
    }

    @Test
    void firstRefusalStaysTheRequestsRefusal() {
        RateLimitDecision first = decision(refused(BURST, SECOND));
        RateLimitDecision second = decision(refused(EXPORT, 9 * SECOND));
        ledger.record(first);
        ledger.record(second);

        assertThat(ledger.refusal()).isSameAs(first);
        assertThat(ledger.headline()).isSameAs(first.outcomes().get(0));
    }

    @Test
    void releaseAllGivesBackEveryAllowedDecisionOnce() {
        RateLimitDecision transport = decision(spent(GLOBAL, 999, 60 * SECOND));
        RateLimitDecision principal = decision(spent(DELETE, 1, 60 * SECOND));
        RateLimitDecision refusal = decision(refused(EXPORT, 9 * SECOND));
        ledger.record(transport);
        ledger.record(principal);
        ledger.record(refusal);

        ledger.releaseAll(store);
        ledger.releaseAll(store);

        assertThat(store.released).containsExactly(transport, principal);
    }

    @Test
    void releaseAllOfALedgerWithNothingSpentGivesNothingBack() {
        ledger.record(decision(refused(BURST, SECOND), notSpent(HOURLY, 400, 60 * SECOND)));

        ledger.releaseAll(store);

        assertThat(store.released).isEmpty();
    }

    @Test
    void eachScopeIsClaimedOncePerRequest() {
        int transport = 1 << RateLimitScope.TRANSPORT.ordinal();
        int principal = 1 << RateLimitScope.PRINCIPAL.ordinal();

        assertThat(ledger.claim(transport)).isTrue();
        assertThat(ledger.claim(transport)).isFalse();
        assertThat(ledger.claim(principal)).isTrue();
        assertThat(ledger.claim(principal)).isFalse();
        assertThat(ledger.claim(transport)).isFalse();
    }

    @Test
    void recognisesItsResourceMethodOnly() {
        assertThat(ledger.isResourceMethod("TodoResource.create")).isTrue();
        assertThat(ledger.isResourceMethod("ExportService.export")).isFalse();
    }

    private static RateLimitPolicy policy(String name, int permitLimit, int windowSeconds, RateLimitScope scope) {
        return new RateLimitPolicy(name, permitLimit, windowSeconds, scope);
    }

    private static Outcome spent(RateLimitPolicy policy, int remaining, long resetNanos) {
        return new Outcome(policy, true, remaining, resetNanos, 1_000L);
    }

    private static Outcome notSpent(RateLimitPolicy policy, int remaining, long resetNanos) {
        return new Outcome(policy, true, remaining, resetNanos, RateLimitDecision.NO_RECEIPT);
    }

    private static Outcome refused(RateLimitPolicy policy, long waitNanos) {
        return new Outcome(policy, false, 0, waitNanos, RateLimitDecision.NO_RECEIPT);
    }

    private static RateLimitDecision decision(Outcome... outcomes) {
        return new RateLimitDecision("sub:alice", List.of(outcomes));
    }

    /** Remembers what was given back. */
    private static final class RecordingStore implements RateLimitStore {
        final List<RateLimitDecision> released = new ArrayList<>();

        @Override
        public CompletionStage<RateLimitDecision> acquire(String partition, List<RateLimitPolicy> policies) {
            return CompletableFuture.failedFuture(new UnsupportedOperationException("not used"));
        }

        @Override
        public void release(RateLimitDecision decision) {
            released.add(decision);
        }
    }
}
