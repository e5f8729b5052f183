package dev.ratelimit.core.engine;

import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;

/**
 * A limit as the application declares it (an {@code @RateLimit}, or the global limit of the
 * configuration), before configuration overrides, modes and plans apply.
 *
 * @param policy        the declared policy
 * @param cost          permits one call spends, 1 .. {@code policy.permitLimit()}
 * @param origin        where it was declared, for messages: {@code "@RateLimit on TodoResource"},
 *                      {@code "ratelimit.global.*"}
 * @param maxWaitMillis how long a call may wait for its permits (SPEC 20), {@code >= 0}; 0 refuses at once
 * @param per           whose count it spends from
 */
public record DeclaredLimit(RateLimitPolicy policy, int cost, String origin, long maxWaitMillis, RateLimitPer per) {

    /** @throws IllegalArgumentException when the wait is negative or {@code per} is null */
    public DeclaredLimit {
        if (maxWaitMillis < 0) {
            throw new IllegalArgumentException("maxWaitMillis must be >= 0, was " + maxWaitMillis);
        }
        if (per == null) {
            throw new IllegalArgumentException("per must not be null");
        }
    }

    /** A limit that refuses at once and counts per caller. */
    public DeclaredLimit(RateLimitPolicy policy, int cost, String origin) {
        this(policy, cost, origin, 0, RateLimitPer.CALLER);
    }
}
