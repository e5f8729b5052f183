package dev.ratelimit.core.engine;

import dev.ratelimit.core.RateLimitPolicy;

/**
 * A limit as the application declares it (an {@code @RateLimit}, or the global limit of the
 * configuration), before configuration overrides, modes and plans apply.
 *
 * @param policy the declared policy
 * @param cost   permits one call spends, 1 .. {@code policy.permitLimit()}
 * @param origin where it was declared, for messages: {@code "@RateLimit on TodoResource"},
 *               {@code "ratelimit.global.*"}
 */
public record DeclaredLimit(RateLimitPolicy policy, int cost, String origin) {
}
