package dev.ratelimit.openapi.internal.index;

import dev.ratelimit.core.LimitRules;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;

/**
 * One {@code @RateLimit} as the processor read it: every member, as declared (configuration is applied
 * later, by the OpenAPI filter). Immutable.
 *
 * @param policy name, permitLimit, windowSeconds and algorithm
 * @param cost   permits one call spends, 1 .. permitLimit
 * @param scope  where in the filter chain it decides
 */
public record IndexedLimit(RateLimitPolicy policy, int cost, RateLimitScope scope) {

    /** @throws IllegalArgumentException naming the member and the value, as the runtime words it */
    public IndexedLimit {
        if (policy == null || scope == null) {
            throw new IllegalArgumentException("a limit needs a policy and a scope");
        }
        String costError = LimitRules.costError(cost, policy.permitLimit());
        if (costError != null) {
            throw new IllegalArgumentException(costError);
        }
    }

    /** A limit of the defaults {@code algorithm} and {@code cost}: what index format 1 records. */
    public static IndexedLimit of(String name, int permitLimit, int windowSeconds, RateLimitScope scope) {
        return new IndexedLimit(new RateLimitPolicy(name, permitLimit, windowSeconds, RateLimitAlgorithm.SLIDING_WINDOW),
                1, scope);
    }

    /** {@code "burst" 5/1s}, then the algorithm, cost and scope where they are not the defaults. */
    @Override
    public String toString() {
        return policy + (cost == 1 ? "" : " cost " + cost) + (scope == RateLimitScope.TRANSPORT ? "" : " " + scope);
    }
}
