package dev.ratelimit.core.engine;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.binding.BoundKey;
import java.util.ArrayList;
import java.util.List;

/**
 * Which of a request's decisions reach its headers, and as what: the headline of the single-value headers and the
 * list of the list-valued ones, read from the request's {@link RequestLedger} (under its lock), nothing recomputed.
 * Limits in shadow mode are never reported; limits per argument only when they refused (an allowed response would
 * tell anyone how many failures another person's account has); a limit whose permits were given back (a refused
 * request, a success of a limit that counts only failures) as it stands after the give-back. Stateless.
 */
final class ReportedOutcomes {

    private ReportedOutcomes() {
    }

    /**
     * The outcome the single-value headers ({@code RateLimit-Limit}, {@code -Remaining}, {@code -Reset})
     * describe: the last limit decided; when refused, the refusing limit with the longest wait. Limits in
     * shadow mode are never reported, limits per argument only when they refused. Null when nothing reportable was
     * decided.
     */
    static Outcome headline(RequestLedger ledger) {
        int refusal = ledger.refusalIndex();
        if (refusal >= 0) {
            return longestRefusal(ledger.decision(refusal));
        }
        for (int e = ledger.size() - 1; e >= 0; e--) {
            RateLimitDecision decision = ledger.decision(e);
            BoundKey[] keys = ledger.keys(e);
            for (int i = decision.size() - 1; i >= 0; i--) {
                if (reportedWhenAllowed(keys[i])) {
                    return ledger.settled(decision) ? afterGiveBack(decision, i) : decision.outcome(i);
                }
            }
        }
        return null;
    }

    /** A limit shows in an allowed request's headers unless it is in shadow mode or counts per argument. */
    private static boolean reportedWhenAllowed(BoundKey key) {
        return !key.shadow() && !key.quiet();
    }

    /**
     * Every reportable limit decided, in order, once each (a limit reached twice in one request is reported
     * as it stood last), for the list-valued headers. When refused: the limits decided before the refusal as
     * they stand once their permits are given back, then the refusing decision's limits with the refusing
     * ones last (the headline last of all).
     */
    static List<Outcome> all(RequestLedger ledger) {
        RateLimitDecision only = ledger.onlyDecision();
        if (only != null && only.size() == 1) { // the common case: one decision of one limit, allowed
            return reportedWhenAllowed(ledger.keys(0)[0]) ? List.of(only.outcome(0)) : List.of();
        }
        List<Outcome> all = decidedInOrder(ledger);
        List<Outcome> once = new ArrayList<>(all.size());
        for (int i = 0; i < all.size(); i++) {
            if (!reportedLater(all, i)) {
                once.add(all.get(i));
            }
        }
        return once;
    }

    private static boolean reportedLater(List<Outcome> all, int index) {
        String name = all.get(index).policy().name();
        for (int j = index + 1; j < all.size(); j++) {
            if (all.get(j).policy().name().equals(name)) {
                return true;
            }
        }
        return false;
    }

    private static List<Outcome> decidedInOrder(RequestLedger ledger) {
        List<Outcome> all = new ArrayList<>(4);
        int refusal = ledger.refusalIndex();
        if (refusal < 0) {
            for (int e = 0, size = ledger.size(); e < size; e++) {
                RateLimitDecision decision = ledger.decision(e);
                BoundKey[] keys = ledger.keys(e);
                boolean settled = ledger.settled(decision);
                for (int i = 0; i < decision.size(); i++) {
                    if (reportedWhenAllowed(keys[i])) {
                        all.add(settled ? afterGiveBack(decision, i) : decision.outcome(i));
                    }
                }
            }
            return all;
        }
        for (int e = 0; e < refusal; e++) {
            RateLimitDecision d = ledger.decision(e);
            if (!d.allowed()) {
                continue;
            }
            BoundKey[] keys = ledger.keys(e);
            for (int i = 0; i < d.size(); i++) {
                if (reportedWhenAllowed(keys[i])) {
                    all.add(afterGiveBack(d, i));
                }
            }
        }
        RateLimitDecision d = ledger.decision(refusal);
        BoundKey[] keys = ledger.keys(refusal);
        Outcome headline = longestRefusal(d);
        for (int i = 0; i < d.size(); i++) {
            if (!keys[i].shadow() && !d.refuses(i)) {
                all.add(d.outcome(i));
            }
        }
        for (int i = 0; i < d.size(); i++) {
            if (d.refuses(i) && d.outcome(i) != headline) {
                all.add(d.outcome(i));
            }
        }
        all.add(headline);
        return all;
    }

    /** Limit {@code i} of an allowed decision as it stands once the decision's permits are given back. */
    private static Outcome afterGiveBack(RateLimitDecision d, int i) {
        Outcome o = d.outcome(i);
        return o.spent() && d.request().kind(i) != Kind.CHARGE ? givenBack(o, d.permits(i)) : o;
    }

    private static Outcome givenBack(Outcome o, long permits) {
        long remaining = Math.min((long) o.remaining() + permits, Integer.MAX_VALUE);
        return new Outcome(o.policy(), State.UNSPENT, (int) remaining, o.resetNanos(), 0, RateLimitDecision.NO_RECEIPT);
    }

    private static Outcome longestRefusal(RateLimitDecision d) {
        Outcome longest = null;
        for (int i = 0; i < d.size(); i++) {
            if (d.refuses(i) && (longest == null || d.outcome(i).retryAfterNanos() > longest.retryAfterNanos())) {
                longest = d.outcome(i);
            }
        }
        return longest;
    }
}
