package dev.ratelimit.internal.resolve;

import dev.ratelimit.RateLimitPolicy;

/** A policy and where it was declared. */
public record ResolvedLimit(RateLimitPolicy policy, Level level) {
}
