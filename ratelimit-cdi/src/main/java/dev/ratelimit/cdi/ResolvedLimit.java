package dev.ratelimit.cdi;

import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.engine.DeclaredLimit;

/**
 * One declared limit covering a method, as written (before configuration).
 *
 * @param policy        its policy
 * @param cost          permits one call spends
 * @param scope         where in the Jakarta REST filter chain it decides
 * @param level         where it was declared
 * @param maxWaitMillis how long a call may wait for its permits (0: refuse at once)
 * @param per           whose count it spends from
 */
public record ResolvedLimit(RateLimitPolicy policy, int cost, RateLimitScope scope, Level level, long maxWaitMillis,
                            RateLimitPer per) {

    /** A limit that refuses at once and counts per caller. */
    public ResolvedLimit(RateLimitPolicy policy, int cost, RateLimitScope scope, Level level) {
        this(policy, cost, scope, level, 0, RateLimitPer.CALLER);
    }

    /** What the engine binds. */
    public DeclaredLimit declared() {
        return new DeclaredLimit(policy, cost, level == Level.GLOBAL ? "ratelimit.global.*" : "@RateLimit", maxWaitMillis,
                per);
    }
}
