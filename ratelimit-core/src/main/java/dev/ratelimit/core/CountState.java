package dev.ratelimit.core;

/**
 * One caller's count of one limit, as the store holds it now, read without spending (the admin
 * API). Immutable.
 *
 * @param policy     the limit's policy as the request that read it sees it (the caller's plan applied)
 * @param remaining  whole permits left, {@code >= 0}
 * @param resetNanos nanoseconds until the count is full again (token bucket) or its oldest permit returns
 *                   (windows); -1 when nothing is spent
 * @param debt       permits spent past the limit by a charge, {@code >= 0}: while above 0 the count
 *                   refuses whatever is left
 */
public record CountState(RateLimitPolicy policy, int remaining, long resetNanos, long debt) {

    /** A count that holds nothing (missing, or every permit returned): the whole limit is left. */
    public static CountState untouched(RateLimitPolicy policy) {
        return new CountState(policy, policy.permitLimit(), -1, 0);
    }

    /** True when the count is in debt. */
    public boolean inDebt() {
        return debt > 0;
    }
}
