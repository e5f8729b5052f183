package dev.ratelimit.quarkus.deployment;

import java.util.List;

/**
 * The build of an application whose {@code @RateLimit} declarations are invalid: one line per problem, each naming
 * the method (or the class, or the {@code Application}) and the value. No stack trace: the message is the answer,
 * and Maven shows it alone.
 */
final class InvalidRateLimitsException extends RuntimeException {

    InvalidRateLimitsException(List<String> problems) {
        super("Invalid rate limits (ratelimit-quarkus):\n  " + String.join("\n  ", problems), null, false, false);
    }
}
