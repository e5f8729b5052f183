package dev.ratelimit.quarkus.runtime;

import dev.ratelimit.cdi.Level;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitScope;

/**
 * One {@code @RateLimit} as the build read it from the Jandex index, validated there, recorded for run-time init:
 * what {@link RateLimitRecorder} binds with the run-time configuration. Every member of the annotation, defaults
 * filled in.
 *
 * @param name          the count it spends from
 * @param permitLimit   permits per window
 * @param windowSeconds the window in seconds
 * @param algorithm     how spent permits return
 * @param cost          permits one call spends
 * @param scope         where in the filter chain it decides
 * @param level         where it was declared: {@link Level#MODULE}, {@link Level#CLASS} or {@link Level#METHOD}
 * @param maxWaitMillis how long a call may wait for its permits (SPEC 20): a resource method's must be 0, which its
 *                      binding checks at run-time init, with the configuration's value
 * @param per           whose count it spends from (SPEC 20)
 */
public record LimitDeclaration(String name, int permitLimit, int windowSeconds, RateLimitAlgorithm algorithm, int cost,
                            RateLimitScope scope, Level level, long maxWaitMillis, RateLimitPer per) {
}
