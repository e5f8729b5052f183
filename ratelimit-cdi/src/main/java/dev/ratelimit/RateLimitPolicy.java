package dev.ratelimit;

import java.util.regex.Pattern;

/**
 * One resolved limit: what a {@link RateLimit} annotation or the global configuration declares.
 * Immutable and validated on construction.
 *
 * @param name          the count it spends from; 1-64 characters from {@code [A-Za-z0-9._-]}
 * @param permitLimit   permits per window, {@code >= 1}
 * @param windowSeconds the window in seconds, 1 .. {@value #MAX_WINDOW_SECONDS}
 * @param scope         where the limit decides
 */
public record RateLimitPolicy(String name, int permitLimit, int windowSeconds, RateLimitScope scope) {

    /** The longest window: one year. */
    public static final int MAX_WINDOW_SECONDS = 31_536_000;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    /** @throws IllegalArgumentException naming the member and the value when one is out of range */
    public RateLimitPolicy {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("name must be 1-64 characters from [A-Za-z0-9._-], was "
                    + (name == null ? "null" : '"' + name + '"'));
        }
        if (permitLimit < 1) {
            throw new IllegalArgumentException("permitLimit must be >= 1, was " + permitLimit);
        }
        if (windowSeconds < 1 || windowSeconds > MAX_WINDOW_SECONDS) {
            throw new IllegalArgumentException(
                    "windowSeconds must be between 1 and " + MAX_WINDOW_SECONDS + ", was " + windowSeconds);
        }
        if (scope == null) {
            throw new IllegalArgumentException("scope must not be null");
        }
    }

    /** The policy an annotation declares. */
    public static RateLimitPolicy of(RateLimit annotation) {
        return new RateLimitPolicy(annotation.name(), annotation.permitLimit(), annotation.windowSeconds(),
                annotation.scope());
    }

    @Override
    public String toString() {
        return '"' + name + "\" " + permitLimit + "/" + windowSeconds + "s " + scope;
    }
}
