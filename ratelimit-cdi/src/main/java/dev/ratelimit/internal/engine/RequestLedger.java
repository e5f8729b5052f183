package dev.ratelimit.internal.engine;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitDecision.Outcome;
import dev.ratelimit.RateLimitStore;
import java.util.ArrayList;
import java.util.List;

/**
 * What one request spent and was refused, in the order it was decided: the filters' decisions for
 * the resource method (TRANSPORT, then PRINCIPAL), then any CDI bean limits the method reached.
 *
 * <p>It makes three rules simple: exactly once (the interceptor recognises the request's resource
 * method, already decided by the filters), a 429 costs nothing ({@link #releaseAll} gives back every
 * permit spent), and the headers (rendered from {@link #reported()} and {@link #headline()}, nothing
 * recomputed).
 *
 * <p>One request at a time, but the parts may run on different threads (an asynchronous bean method
 * refused on a store thread): every method is synchronized.
 */
public final class RequestLedger {

    private final String partition;
    private final Object resourceMethod;
    private final List<RateLimitDecision> decisions = new ArrayList<>(2);
    private RateLimitDecision refusal;
    private boolean released;
    private int decidedScopes;

    /**
     * @param partition      the request's partition, chosen once
     * @param resourceMethod what identifies the request's resource method (its {@code java.lang.reflect.Method})
     */
    public RequestLedger(String partition, Object resourceMethod) {
        this.partition = partition;
        this.resourceMethod = resourceMethod;
    }

    public String partition() {
        return partition;
    }

    /** True when {@code method} is the request's resource method, whose limits the filters decide. */
    public boolean isResourceMethod(Object method) {
        return resourceMethod.equals(method);
    }

    /**
     * Claims the decision of one scope (bit {@code 1 << ordinal}) for this request: false when it was
     * claimed already (a container that binds a filter twice must not charge twice).
     */
    public synchronized boolean claim(int scopeBit) {
        if ((decidedScopes & scopeBit) != 0) {
            return false;
        }
        decidedScopes |= scopeBit;
        return true;
    }

    /** Records a decision; the first refusing one becomes the request's refusal. */
    public synchronized void record(RateLimitDecision decision) {
        decisions.add(decision);
        if (!decision.allowed() && refusal == null) {
            refusal = decision;
        }
    }

    /** The refusing decision, or null. */
    public synchronized RateLimitDecision refusal() {
        return refusal;
    }

    /** True when nothing was decided. */
    public synchronized boolean isEmpty() {
        return decisions.isEmpty();
    }

    /** Gives back every permit this request spent, once. */
    public synchronized void releaseAll(RateLimitStore store) {
        if (released) {
            return;
        }
        released = true;
        for (RateLimitDecision decision : decisions) {
            if (decision.allowed()) {
                store.release(decision);
            }
        }
    }

    /**
     * The outcome the single-value headers ({@code RateLimit-Limit}, {@code -Remaining},
     * {@code -Reset}) describe: the last limit decided; when refused, the refusing limit with the
     * longest wait. Null when nothing was decided.
     */
    public synchronized Outcome headline() {
        if (refusal != null) {
            return longestRefusal(refusal);
        }
        if (decisions.isEmpty()) {
            return null;
        }
        List<Outcome> last = decisions.get(decisions.size() - 1).outcomes();
        return last.get(last.size() - 1);
    }

    /**
     * Every limit decided, in order, once each (a bean limit reached twice in one request is reported
     * as it stood last), for the list-valued headers. When refused: the limits decided before the
     * refusal as they stand after their permits were given back, then the refusing decision's limits
     * with the refusing ones last (the headline last of all).
     */
    public synchronized List<Outcome> reported() {
        List<Outcome> all = decidedInOrder();
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

    private List<Outcome> decidedInOrder() {
        List<Outcome> all = new ArrayList<>(4);
        if (refusal == null) {
            for (RateLimitDecision decision : decisions) {
                all.addAll(decision.outcomes());
            }
            return all;
        }
        for (RateLimitDecision decision : decisions) {
            if (decision == refusal) {
                break;
            }
            if (decision.allowed()) {
                for (Outcome o : decision.outcomes()) {
                    all.add(o.spent() ? o.givenBack() : o);
                }
            }
        }
        Outcome headline = longestRefusal(refusal);
        for (Outcome o : refusal.outcomes()) {
            if (o.allowed()) {
                all.add(o);
            }
        }
        for (Outcome o : refusal.outcomes()) {
            if (!o.allowed() && o != headline) {
                all.add(o);
            }
        }
        all.add(headline);
        return all;
    }

    private static Outcome longestRefusal(RateLimitDecision decision) {
        Outcome longest = null;
        for (Outcome o : decision.outcomes()) {
            if (!o.allowed() && (longest == null || o.resetSeconds() > longest.resetSeconds())) {
                longest = o;
            }
        }
        return longest;
    }
}
