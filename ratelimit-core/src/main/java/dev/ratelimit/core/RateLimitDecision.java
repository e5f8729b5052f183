package dev.ratelimit.core;

import java.util.ArrayList;
import java.util.List;

/**
 * What a {@link RateLimitStore} decided for one partition and one {@link RateLimitRequest}: an
 * {@link Outcome} per limit, in the request's order. Immutable.
 *
 * <p>All or nothing: either the request is {@link #allowed()} and every limit spent what the request
 * asked of it (a limit in shadow mode only if it had the permits), or an enforced limit refused and
 * nothing was spent from any limit.
 */
public final class RateLimitDecision {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    /** The receipt of an outcome that spent nothing. */
    public static final long NO_RECEIPT = Long.MIN_VALUE;

    private final String partition;
    private final RateLimitRequest request;
    private final int multiple;
    private final Outcome first;
    /** Null for a request of one limit. */
    private final Outcome second;
    /** Null for a request of one or two limits: the common cases allocate no array. */
    private final Outcome[] all;
    private final boolean allowed;

    private RateLimitDecision(String partition, RateLimitRequest request, int multiple, Outcome first, Outcome second,
                              Outcome[] all, boolean allowed) {
        this.partition = partition;
        this.request = request;
        this.multiple = multiple;
        this.first = first;
        this.second = second;
        this.all = all;
        this.allowed = allowed;
    }

    /** A decision of {@code outcomes} (one per limit of {@code request}), checked. */
    private static RateLimitDecision checked(String partition, RateLimitRequest request, int multiple, Outcome first,
                                             Outcome second, Outcome[] all) {
        checkMultiple(multiple);
        int n = all != null ? all.length : second != null ? 2 : 1;
        if (n != request.size()) {
            throw new IllegalArgumentException("a decision needs one outcome per limit of " + request + ", had " + n);
        }
        boolean allowed = true;
        for (int i = 0; i < n; i++) {
            Outcome o = all != null ? all[i] : i == 0 ? first : second;
            if (o == null) {
                throw new IllegalArgumentException("outcome " + i + " is null");
            }
            allowed &= allows(o, request, i);
        }
        return new RateLimitDecision(partition, request, multiple, first, second, all, allowed);
    }

    /** False when {@code o} refuses limit {@code i} of {@code request}, and that limit is enforced. */
    private static boolean allows(Outcome o, RateLimitRequest request, int i) {
        return o.state != State.REFUSED || request.kind(i) != RateLimitRequest.Kind.ACQUIRE;
    }

    private static void checkMultiple(int multiple) {
        if (multiple < 1) {
            throw new IllegalArgumentException("multiple must be >= 1, was " + multiple);
        }
    }

    /** The decision on a request of one limit. */
    public static RateLimitDecision of(String partition, RateLimitRequest request, int multiple, Outcome outcome) {
        // checked() written out for a store's common case, small enough to inline
        checkMultiple(multiple);
        if (outcome == null || request.size() != 1) {
            return checked(partition, request, multiple, outcome, null, null); // throws, naming what is wrong
        }
        return new RateLimitDecision(partition, request, multiple, outcome, null, null, allows(outcome, request, 0));
    }

    /** The decision on a request of two limits, their outcomes in the request's order. */
    public static RateLimitDecision of(String partition, RateLimitRequest request, int multiple, Outcome first,
                                       Outcome second) {
        if (second == null) {
            throw new IllegalArgumentException("outcome 1 is null");
        }
        checkMultiple(multiple);
        if (first == null || request.size() != 2) {
            return checked(partition, request, multiple, first, second, null); // throws, naming what is wrong
        }
        return new RateLimitDecision(partition, request, multiple, first, second, null,
                allows(first, request, 0) && allows(second, request, 1));
    }

    /** The decision on a request; takes {@code outcomes} over (the caller must not change it). */
    public static RateLimitDecision ofArray(String partition, RateLimitRequest request, int multiple, Outcome[] outcomes) {
        return switch (outcomes.length) {
            case 1 -> of(partition, request, multiple, outcomes[0]);
            case 2 -> of(partition, request, multiple, outcomes[0], outcomes[1]);
            default -> checked(partition, request, multiple, outcomes.length == 0 ? null : outcomes[0], null, outcomes);
        };
    }

    public String partition() {
        return partition;
    }

    /** What was asked. */
    public RateLimitRequest request() {
        return request;
    }

    /** How many times each limit's cost was asked for (1 for a request; n for n permits of the programmatic API). */
    public int multiple() {
        return multiple;
    }

    /** Permits limit {@code i} spent, or would have spent: its cost times {@link #multiple()}. */
    public long permits(int i) {
        return (long) request.cost(i) * multiple;
    }

    /** The number of outcomes: the request's limits. */
    public int size() {
        return all != null ? all.length : second != null ? 2 : 1;
    }

    /** The outcome of limit {@code i}. */
    public Outcome outcome(int i) {
        if (all != null) {
            return all[i];
        }
        if (i == 0) {
            return first;
        }
        if (i == 1 && second != null) {
            return second;
        }
        throw new IndexOutOfBoundsException(i);
    }

    /** One per limit, in the request's order. */
    public List<Outcome> outcomes() {
        return all != null ? List.of(all) : second != null ? List.of(first, second) : List.of(first);
    }

    /** True unless an enforced limit refused; then nothing was spent. */
    public boolean allowed() {
        return allowed;
    }

    /** The enforced limits that refused, in order; empty when allowed. */
    public List<Outcome> refused() {
        if (allowed) {
            return List.of();
        }
        List<Outcome> refused = new ArrayList<>(2);
        for (int i = 0; i < size(); i++) {
            if (refuses(i)) {
                refused.add(outcome(i));
            }
        }
        return refused;
    }

    /** True when limit {@code i} is enforced and refused. */
    public boolean refuses(int i) {
        return outcome(i).state == State.REFUSED && request.kind(i) == RateLimitRequest.Kind.ACQUIRE;
    }

    /** Nanoseconds until the request would be allowed: the longest wait of the refusing limits; 0 when allowed. */
    public long retryAfterNanos() {
        long longest = 0;
        for (int i = 0; i < size(); i++) {
            if (refuses(i)) {
                longest = Math.max(longest, outcome(i).retryAfterNanos);
            }
        }
        return longest;
    }

    /**
     * Nanoseconds from the decision until the call may go ahead: 0 unless its limits were reserved (a limit that
     * waits), then the longest wait of them (all of a call's limits are reserved for the same instant).
     */
    public long waitNanos() {
        if (!allowed) {
            return 0;
        }
        long longest = first.waitNanos;
        for (int i = 1; i < size(); i++) {
            longest = Math.max(longest, outcome(i).waitNanos);
        }
        return longest;
    }

    /** {@link #retryAfterNanos()} in whole seconds, rounded up, at least 1; 0 when allowed. */
    public long retryAfterSeconds() {
        return allowed ? 0 : roundUpToSeconds(retryAfterNanos());
    }

    /** Nanoseconds rounded up to whole seconds, at least 1: a wait of 1 ns is announced as 1 s, never 0. */
    public static long roundUpToSeconds(long nanos) {
        if (nanos <= NANOS_PER_SECOND) {
            return 1;
        }
        return (nanos - 1) / NANOS_PER_SECOND + 1;
    }

    @Override
    public String toString() {
        return "RateLimitDecision[" + partition + ", " + outcomes() + "]";
    }

    /** What happened to one limit's count. */
    public enum State {
        /** The permits were spent. */
        SPENT,
        /** The count had the permits, but nothing was spent: another limit of the request refused it. */
        UNSPENT,
        /** The count did not have the permits (for a limit in shadow mode: it would have refused). */
        REFUSED,
        /** Let through without counting: the in-process store was full, or the store failed and the policy allows. */
        UNCOUNTED
    }

    /**
     * The state of one limit's count after the request.
     *
     * @param policy          the limit as the caller's request sized it (headers show it)
     * @param state           what happened
     * @param remaining       whole permits left in the count, {@code >= 0} (0 in debt)
     * @param resetNanos      nanoseconds until the count is full again (token bucket) or until its oldest
     *                        spent permit returns (windows); {@code -1} when nothing is spent (then the
     *                        window is reported)
     * @param retryAfterNanos when refused: nanoseconds until the request would be allowed; else 0
     * @param receipt         where the permits were spent, for {@link RateLimitStore#release}; opaque to
     *                        all but the store; {@link #NO_RECEIPT} when nothing was spent
     * @param waitNanos       when spent by a reservation (a limit that waits): nanoseconds from the
     *                        decision until the permits exist, when the call goes ahead; else 0
     */
    public record Outcome(RateLimitPolicy policy, State state, int remaining, long resetNanos, long retryAfterNanos,
                          long receipt, long waitNanos) {

        /** An outcome that goes ahead at once (no wait). */
        public Outcome(RateLimitPolicy policy, State state, int remaining, long resetNanos, long retryAfterNanos,
                       long receipt) {
            this(policy, state, remaining, resetNanos, retryAfterNanos, receipt, 0);
        }

        /** An outcome let through uncounted: the whole limit remains. */
        public static Outcome uncounted(RateLimitPolicy policy) {
            return new Outcome(policy, State.UNCOUNTED, policy.permitLimit(), -1, 0, NO_RECEIPT);
        }

        /** True unless the count lacked the permits. */
        public boolean allowed() {
            return state != State.REFUSED;
        }

        /** True when permits were spent (and can be given back). */
        public boolean spent() {
            return state == State.SPENT;
        }

        /** {@link #resetNanos()} in whole seconds, rounded up, at least 1; the window when unknown. */
        public long resetSeconds() {
            return resetNanos < 0 ? policy.windowSeconds() : roundUpToSeconds(resetNanos);
        }

        /** {@link #retryAfterNanos()} in whole seconds, rounded up, at least 1. */
        public long retryAfterSeconds() {
            return roundUpToSeconds(retryAfterNanos);
        }
    }
}
