package dev.ratelimit;

import java.util.ArrayList;
import java.util.List;

/**
 * What a {@link RateLimitStore} decided for one partition and the limits of one request: an
 * {@link Outcome} per limit, in the order the limits were given. Immutable.
 *
 * <p>All or nothing: either every outcome is allowed (one permit was spent from each count), or at
 * least one is refused and nothing was spent.
 */
public final class RateLimitDecision {

    /** Marks an outcome with nothing to give back: refused, or let through uncounted. */
    public static final long NO_RECEIPT = Long.MIN_VALUE;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final String partition;
    private final List<Outcome> outcomes;
    private final boolean allowed;

    /**
     * @param partition the partition the request spends from
     * @param outcomes  one per limit, in the request's order; at least one
     */
    public RateLimitDecision(String partition, List<Outcome> outcomes) {
        if (outcomes.isEmpty()) {
            throw new IllegalArgumentException("a decision needs at least one outcome");
        }
        this.partition = partition;
        this.outcomes = List.copyOf(outcomes);
        boolean all = true;
        for (Outcome o : this.outcomes) {
            all &= o.allowed();
        }
        this.allowed = all;
    }

    /** A decision on a single limit. */
    public static RateLimitDecision of(String partition, Outcome outcome) {
        return new RateLimitDecision(partition, List.of(outcome));
    }

    public String partition() {
        return partition;
    }

    /** One per limit, in the order the limits were given. */
    public List<Outcome> outcomes() {
        return outcomes;
    }

    /** True when every limit allowed the request and a permit was spent from each. */
    public boolean allowed() {
        return allowed;
    }

    /** The outcomes that refused, in order; empty when allowed. */
    public List<Outcome> refused() {
        if (allowed) {
            return List.of();
        }
        List<Outcome> refused = new ArrayList<>(outcomes.size());
        for (Outcome o : outcomes) {
            if (!o.allowed()) {
                refused.add(o);
            }
        }
        return refused;
    }

    /**
     * Seconds until the request would be allowed: the longest wait among the refusing limits, rounded
     * up, at least 1. Zero when allowed.
     */
    public long retryAfterSeconds() {
        long longest = 0;
        for (Outcome o : outcomes) {
            if (!o.allowed()) {
                longest = Math.max(longest, o.resetSeconds());
            }
        }
        return longest;
    }

    /** Nanoseconds rounded up to whole seconds, at least 1: a wait of 1 ns is announced as 1 s, never 0. */
    public static long roundUpToSeconds(long nanos) {
        if (nanos <= NANOS_PER_SECOND) {
            return 1;
        }
        return (nanos + NANOS_PER_SECOND - 1) / NANOS_PER_SECOND;
    }

    @Override
    public String toString() {
        return "RateLimitDecision[" + partition + ", " + outcomes + "]";
    }

    /**
     * The state of one limit's count for this request.
     *
     * @param policy     the limit as the request declared it
     * @param allowed    whether the count had a permit for this request
     * @param remaining  permits left in the count after this request ({@code 0} when refused), {@code >= 0}
     * @param resetNanos nanoseconds until the count's oldest spent permit returns; when refused, until
     *                   the request would be allowed; {@code -1} when unknown (the window is reported)
     * @param receipt    where the permit was spent, for {@link RateLimitStore#release}; opaque to
     *                   everybody but the store; {@link #NO_RECEIPT} when nothing was spent
     */
    public record Outcome(RateLimitPolicy policy, boolean allowed, int remaining, long resetNanos, long receipt) {

        /** Seconds until the count's oldest spent permit returns, rounded up, at least 1. */
        public long resetSeconds() {
            return resetNanos < 0 ? policy.windowSeconds() : roundUpToSeconds(resetNanos);
        }

        /** True when a permit was spent and can be given back. */
        public boolean spent() {
            return allowed && receipt != NO_RECEIPT;
        }

        /** The same outcome after its permit was given back. */
        public Outcome givenBack() {
            return new Outcome(policy, allowed, remaining + 1, resetNanos, NO_RECEIPT);
        }
    }

    /**
     * The outcome of one limit, mutable and reusable, for a store that decides without allocating
     * ({@code InProcessRateLimitStore.tryAcquire}). Not thread-safe: keep one per thread, or make one
     * per call. {@link #outcome} makes the immutable {@link Outcome}.
     */
    public static final class Acquisition {
        private boolean allowed;
        private int remaining;
        private long resetNanos;
        private long receipt;

        /** True when the count had a permit for this request (see {@link Outcome#allowed()}). */
        public boolean allowed() {
            return allowed;
        }

        /** Permits left after this request, {@code 0} when refused (see {@link Outcome#remaining()}). */
        public int remaining() {
            return remaining;
        }

        /** Nanoseconds until the oldest spent permit returns, {@code -1} when unknown (see {@link Outcome#resetNanos()}). */
        public long resetNanos() {
            return resetNanos;
        }

        /** Where the permit was spent, {@link RateLimitDecision#NO_RECEIPT} when nothing was (see {@link Outcome#receipt()}). */
        public long receipt() {
            return receipt;
        }

        /** The immutable outcome of {@code policy} this acquisition describes. */
        public Outcome outcome(RateLimitPolicy policy) {
            return new Outcome(policy, allowed, remaining, resetNanos, receipt);
        }

        /** Written by the store that decides; the members mean what {@link Outcome}'s do. */
        public void set(boolean allowed, int remaining, long resetNanos, long receipt) {
            this.allowed = allowed;
            this.remaining = remaining;
            this.resetNanos = resetNanos;
            this.receipt = receipt;
        }

        @Override
        public String toString() {
            return "Acquisition[allowed=" + allowed + ", remaining=" + remaining + ", resetNanos=" + resetNanos
                    + ", receipt=" + receipt + "]";
        }
    }
}
