package dev.ratelimit.core.engine;

import dev.ratelimit.core.RateLimitCaller;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.binding.BoundKey;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.binding.LiveLimits;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * What one request (or one call outside a request) decided, in order: the decisions of the resource
 * method's limits (one scope, then the other), then those of bean limits and of the programmatic API the
 * method reached. The partition is chosen once, when the ledger is made; the plan at most once, when a
 * limit first needs it.
 *
 * <p>It makes three rules simple: exactly once (a call site is decided once per request:
 * {@link RateLimitEngine} claims it here; the interceptor recognises the request's resource method), a
 * 429 costs nothing ({@link RateLimitEngine#giveBack} returns every permit spent), and the headers
 * ({@link #reported()} and {@link #headline()}, nothing recomputed: {@link ReportedOutcomes} chooses what they show). A limit that counts only failures gives its
 * permits back when the call succeeded ({@link RateLimitEngine#settle}, {@link RateLimitEngine#succeeded}); the
 * headers then show the count after it. Limits per argument stay out of an allowed request's headers.
 *
 * <p>One request at a time, but its parts may run on different threads (a decision completed by a remote
 * store's thread): every method that reads or writes the decisions is synchronized.
 *
 * <p>One job: the record of one request's decisions, kept in as few objects as a request with one decision needs (its
 * fields), and read by the headers, the give-backs and the adapters.
 */
public final class RequestLedger {

    /**
     * The configuration this request decides in, read once (so that live values change nothing mid-request); its
     * engine is this request's.
     */
    private final LiveLimits live;
    private final RateLimitCaller caller;
    private final String partition;
    private final Method resourceMethod;
    // What a request that decides once needs, in fields: most requests decide once (one call site, one decision).
    // The decisions are kept in order, each with the part of its call site it decided; the second and later in rest.
    private int plan = -1;
    /** The first call site claimed ({@link #claim}); the second and later in rest. */
    private BoundLimits claimed;
    private RateLimitDecision firstDecision;
    private LiveLimits.Part firstPart;
    private Rest rest;

    /**
     * What fewer requests need, made on first use: a second call site and decision (a resource method's limits and
     * a bean's, or the global limit's scope and the method's), a refusal, a give-back. A ledger is made for every
     * request: without these it is 48 bytes instead of 80. No rest: at most one decision, and it allowed the request.
     */
    private static final class Rest {
        int refusal = -1; // the index of the first refusing decision
        BoundLimits secondClaimed;
        List<BoundLimits> moreClaimed;
        RateLimitDecision secondDecision;
        LiveLimits.Part secondPart;
        /** The decision of the same call's part before the second one, or null. */
        RateLimitDecision secondEarlier;
        /** The third decision on, the latest first; {@code more} of them. */
        Decided latest;
        int more;
        boolean released;
        /** Decisions given back on their own ({@link #forget}), left out of {@link #takeForRelease}; usually null. */
        List<RateLimitDecision> forgotten;
        /**
         * Decisions of limits that count only failures, given back because their call succeeded; their headers show
         * the count after it. Usually null.
         */
        List<RateLimitDecision> settled;
    }

    /**
     * A decision after the second, with the part of its call site it decided, the decision of the same call's part
     * before it (or null), and the one recorded before it (the first two are kept in fields): a chain, so that each
     * decision past the second costs this record alone.
     */
    private record Decided(RateLimitDecision decision, LiveLimits.Part part, RateLimitDecision earlierInCall,
                           Decided earlier) {
    }

    RequestLedger(LiveLimits live, RateLimitCaller caller, String partition, Method resourceMethod) {
        this.live = live;
        this.caller = caller;
        this.partition = partition;
        this.resourceMethod = resourceMethod;
    }

    /** The configuration the request decides in. */
    LiveLimits live() {
        return live;
    }

    /** The caller (null for a call with an explicit partition). */
    RateLimitCaller caller() {
        return caller;
    }

    /** The partition every limit per caller of the request spends from. */
    public String partition() {
        return partition;
    }

    /** True when {@code method} is the request's resource method, whose limits the Jakarta REST filters decide. */
    public boolean isResourceMethod(Method method) {
        return resourceMethod != null && (resourceMethod == method || resourceMethod.equals(method));
    }

    /** The caller's plan index (0: no plan), resolved on first use. */
    synchronized int plan() {
        if (plan < 0) {
            plan = live.planOf(caller);
        }
        return plan;
    }

    /** The caller's plan, null for none; resolves it if no limit has yet. */
    public String planName() {
        return live.plans.name(plan());
    }

    /** Claims a call site for this request: false when it was decided already (a container that binds a filter twice). */
    synchronized boolean claim(BoundLimits callSite) {
        if (claimed == null) {
            claimed = callSite;
            return true;
        }
        if (claimed == callSite) {
            return false;
        }
        Rest rest = rest();
        if (rest.secondClaimed == null) {
            rest.secondClaimed = callSite;
            return true;
        }
        if (rest.secondClaimed == callSite) {
            return false;
        }
        if (rest.moreClaimed == null) {
            rest.moreClaimed = new ArrayList<>(2);
        }
        for (BoundLimits c : rest.moreClaimed) {
            if (c == callSite) {
                return false;
            }
        }
        rest.moreClaimed.add(callSite);
        return true;
    }

    private Rest rest() {
        if (rest == null) {
            rest = new Rest();
        }
        return rest;
    }

    /** How many decisions the request recorded. */
    int size() {
        Rest rest = this.rest;
        if (firstDecision == null) {
            return 0;
        }
        if (rest == null || rest.secondDecision == null) {
            return 1;
        }
        return 2 + rest.more;
    }

    /** The request's one decision when it made one and nothing else happened to it (no refusal, no give-back), else null. */
    RateLimitDecision onlyDecision() {
        return rest == null ? firstDecision : null;
    }

    /** The index of the first refusing decision, or -1. */
    int refusalIndex() {
        return rest == null ? -1 : rest.refusal;
    }

    /**
     * Records a decision; the first refusing one becomes the request's refusal.
     *
     * @param part          the part of its call site that it decided
     * @param earlierInCall the decision of the same call's part before it, or null for a call's first
     * @return false when the request has given back its permits already ({@link #takeForRelease}): then the
     *         caller gives this decision's back too
     */
    synchronized boolean record(RateLimitDecision decision, LiveLimits.Part part, RateLimitDecision earlierInCall) {
        int size = size();
        switch (size) {
            case 0 -> {
                firstDecision = decision;
                firstPart = part;
            }
            case 1 -> {
                Rest rest = rest();
                rest.secondDecision = decision;
                rest.secondPart = part;
                rest.secondEarlier = earlierInCall;
            }
            default -> {
                rest.latest = new Decided(decision, part, earlierInCall, rest.latest);
                rest.more++;
            }
        }
        if (!decision.allowed() && refusalIndex() < 0) {
            rest().refusal = size;
        }
        return rest == null || !rest.released;
    }

    /** The first refusing decision, or null. */
    public synchronized RateLimitDecision refusal() {
        int refusal = refusalIndex();
        return refusal < 0 ? null : decision(refusal);
    }

    /**
     * True when the request's refusal is to be answered at once, before the request filters after the limiter's: a
     * limit that counts only failures refused it (else a later filter's own answer to a wrong guess, a 401, would tell
     * it from a right one, which gets the 429).
     */
    public synchronized boolean answersRefusalAtOnce() {
        int refusal = refusalIndex();
        return refusal >= 0 && part(refusal).failuresOnly != null;
    }

    RateLimitDecision decision(int index) {
        return switch (index) {
            case 0 -> firstDecision;
            case 1 -> rest.secondDecision;
            default -> decided(index).decision();
        };
    }

    LiveLimits.Part part(int index) {
        return switch (index) {
            case 0 -> firstPart;
            case 1 -> rest.secondPart;
            default -> decided(index).part();
        };
    }

    BoundKey[] keys(int index) {
        return part(index).keys;
    }

    /** The decision at {@code index}, 2 or more. */
    private Decided decided(int index) {
        Decided d = rest.latest;
        for (int i = 2 + rest.more - 1; i > index; i--) {
            d = d.earlier();
        }
        return d;
    }

    /** The index of {@code decision} among those recorded, or -1. */
    private int indexOf(RateLimitDecision decision) {
        for (int e = size() - 1; e >= 0; e--) {
            if (decision(e) == decision) {
                return e;
            }
        }
        return -1;
    }

    /** The decision of the part decided before {@code decision} in the same call, or null. */
    synchronized RateLimitDecision earlierInCall(RateLimitDecision decision) {
        int index = indexOf(decision);
        return switch (index) {
            case -1, 0 -> null;
            case 1 -> rest.secondEarlier;
            default -> decided(index).earlierInCall();
        };
    }

    /** The allowed decisions, once: what a refused request gives back; empty the second time. */
    synchronized List<RateLimitDecision> takeForRelease() {
        Rest rest = rest();
        if (rest.released) {
            return List.of();
        }
        rest.released = true;
        int size = size();
        List<RateLimitDecision> allowed = new ArrayList<>(size);
        for (int e = 0; e < size; e++) {
            RateLimitDecision decision = decision(e);
            if (decision.allowed() && !contains(rest.forgotten, decision) && !contains(rest.settled, decision)) {
                allowed.add(decision);
            }
        }
        return allowed;
    }

    /**
     * Leaves one recorded decision out of the request's give-back: its caller gives it back on its own.
     *
     * @return false when the request has given back everything already, or this decision was forgotten before
     */
    synchronized boolean forget(RateLimitDecision decision) {
        Rest rest = rest();
        if (rest.released || contains(rest.forgotten, decision) || contains(rest.settled, decision)) {
            return false;
        }
        if (rest.forgotten == null) {
            rest.forgotten = new ArrayList<>(1);
        }
        rest.forgotten.add(decision);
        return true;
    }

    /**
     * Notes that the call of one decision succeeded, when its part counts only failures and its call's outcome judges
     * it: the caller gives its permits back.
     *
     * @param byStatus true when the response's status judged it; false when the method's outcome did
     * @return true when the caller is to give the decision's permits back (once)
     */
    synchronized boolean settle(RateLimitDecision decision, boolean byStatus) {
        int index = indexOf(decision);
        if (index < 0 || !decision.allowed()) {
            return false;
        }
        LiveLimits.Part part = part(index);
        if (part.failuresOnly == null || part.byStatus != byStatus) {
            return false;
        }
        Rest rest = rest();
        if (rest.released || contains(rest.forgotten, decision) || contains(rest.settled, decision)) {
            return false;
        }
        if (rest.settled == null) {
            rest.settled = new ArrayList<>(2);
        }
        rest.settled.add(decision);
        return true;
    }

    /**
     * The decisions that the response's status tells succeeded: those of parts that count only failures and that the
     * status judges (a resource method's limits, the programmatic API's), unless {@code status} is one of their
     * failures. Each once; none when the request was refused (it gives everything back).
     */
    synchronized List<RateLimitDecision> succeededBy(int status) {
        if (refusalIndex() >= 0 || firstDecision == null || (rest == null && firstPart.failuresOnly == null)) {
            return List.of();
        }
        List<RateLimitDecision> succeeded = List.of();
        for (int e = 0, size = size(); e < size; e++) {
            LiveLimits.Part part = part(e);
            if (part.byStatus && part.failuresOnly != null && !part.failuresOnly.failure(status)
                    && settle(decision(e), true)) {
                if (succeeded.isEmpty()) {
                    succeeded = new ArrayList<>(2);
                }
                succeeded.add(decision(e));
            }
        }
        return succeeded;
    }

    private static boolean contains(List<RateLimitDecision> decisions, RateLimitDecision decision) {
        if (decisions != null) {
            for (RateLimitDecision d : decisions) {
                if (d == decision) {
                    return true;
                }
            }
        }
        return false;
    }

    /** True when {@code decision} was given back because its call succeeded ({@link #settle}). */
    boolean settled(RateLimitDecision decision) {
        return rest != null && contains(rest.settled, decision);
    }

    /**
     * The outcome the single-value headers ({@code RateLimit-Limit}, {@code -Remaining}, {@code -Reset})
     * describe ({@link ReportedOutcomes#headline}). Null when nothing reportable was decided.
     */
    public synchronized Outcome headline() {
        return ReportedOutcomes.headline(this);
    }

    /** Every reportable limit decided, in order, once each, for the list-valued headers ({@link ReportedOutcomes#all}). */
    public synchronized List<Outcome> reported() {
        return ReportedOutcomes.all(this);
    }
}
