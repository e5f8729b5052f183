package dev.ratelimit.core.engine;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.binding.BoundKey;
import dev.ratelimit.core.binding.LiveLimits;
import dev.ratelimit.core.guard.GuardedStore;
import dev.ratelimit.core.metrics.RateLimitMetrics;

/**
 * What a store's decision leaves behind, once per decision: its record in the request's ledger (or its permits given
 * back when the request gave everything back already), and for each limit its metrics, its refusal in the summary of
 * the most refused, a shadow limit's would-be refusal in its log line. Nothing is allocated. Thread-safe (stateless
 * but for what it was made with).
 */
final class DecisionRecords {

    private final GuardedStore store;
    /** {@code ratelimit.on-failure=allow}: a decision the policy let through decided nothing, and counts as failed. */
    private final boolean allowOnFailure;

    DecisionRecords(GuardedStore store, boolean allowOnFailure) {
        this.store = store;
        this.allowOnFailure = allowOnFailure;
    }

    /**
     * Records one part's decision.
     *
     * @param sent     what the store was asked ({@code decision.request()} is another when the failure policy decided)
     * @param earlier  the decision of the same call's part before it, or null
     * @return {@code decision}
     */
    RateLimitDecision record(RequestLedger ledger, RateLimitRequest sent, LiveLimits.Part part,
                             RateLimitDecision earlier, RateLimitDecision decision) {
        BoundKey[] keys = part.keys;
        if (!ledger.record(decision, part, earlier) && decision.allowed()) {
            store.release(decision); // the request has given back everything already: this must not stay spent
        }
        if (allowOnFailure && decision.request() != sent) {
            count(keys, RateLimitMetrics.Outcome.FAILED); // the policy let it through: the store decided nothing
            return decision;
        }
        boolean allowed = decision.allowed();
        for (int i = 0; i < decision.size(); i++) {
            Outcome outcome = decision.outcome(i);
            BoundKey key = keys[i];
            switch (outcome.state()) {
                case SPENT -> {
                    key.count(RateLimitMetrics.Outcome.ALLOWED);
                    key.allowedLeaving(outcome.remaining(), outcome.policy().permitLimit());
                    if (outcome.waitNanos() > 0) {
                        key.waited(outcome.waitNanos()); // the wait granted: the call goes ahead then
                    }
                }
                case UNCOUNTED -> key.count(RateLimitMetrics.Outcome.UNCOUNTED);
                case REFUSED -> {
                    if (decision.request().kind(i) == Kind.ACQUIRE) {
                        key.count(RateLimitMetrics.Outcome.REFUSED);
                        key.refused(decision.partition());
                    } else if (allowed) {
                        key.count(RateLimitMetrics.Outcome.SHADOW_REFUSED);
                        key.wouldHaveRefused();
                    }
                }
                default -> {
                    // UNSPENT: another limit refused; this one decided nothing
                }
            }
        }
        return decision;
    }

    /** Counts {@code outcome} for each of a part's limits: a store failure, for instance. */
    static void count(BoundKey[] keys, RateLimitMetrics.Outcome outcome) {
        for (BoundKey key : keys) {
            key.count(outcome);
        }
    }
}
