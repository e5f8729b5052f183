package dev.ratelimit.cdi;

import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.engine.DeclaredLimit;

/**
 * One declared limit covering a method, as written (before configuration).
 *
 * @param policy its policy
 * @param cost   permits one call spends
 * @param scope  where in the Jakarta REST filter chain it decides
 * @param level  where it was declared
 */
public record ResolvedLimit(RateLimitPolicy policy, int cost, RateLimitScope scope, Level level) {

    /** What the engine binds. */
    public DeclaredLimit declared() {
        return new DeclaredLimit(policy, cost, level == Level.GLOBAL ? "ratelimit.global.*" : "@RateLimit");
    }
}
