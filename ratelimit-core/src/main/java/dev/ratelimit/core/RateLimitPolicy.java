package dev.ratelimit.core;

import java.util.regex.Pattern;

/**
 * The size of a limit: how many permits a count holds per window, and how they return. What an
 * {@code @RateLimit} declares (after configuration overrides and plans are applied), and what a count
 * is created with. Immutable, validated on construction.
 *
 * @param name          the count it spends from (with the partition and the plan); 1-64 characters
 *                      from {@code [A-Za-z0-9._-]}; also the name in the {@code RateLimit} and
 *                      {@code RateLimit-Policy} headers and in metrics
 * @param permitLimit   permits per window, 1 .. {@code Integer.MAX_VALUE}
 * @param windowSeconds the window, in seconds, 1 .. {@value #MAX_WINDOW_SECONDS} (one year)
 * @param algorithm     how spent permits return
 */
public record RateLimitPolicy(String name, int permitLimit, int windowSeconds, RateLimitAlgorithm algorithm) {

    /** The longest window: one year, in seconds. */
    public static final int MAX_WINDOW_SECONDS = 31_536_000;

    /** What a limit name (and a plan name) may be: 1-64 characters from {@code [A-Za-z0-9._-]}. */
    public static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

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
        if (algorithm == null) {
            throw new IllegalArgumentException("algorithm must not be null");
        }
    }

    /** A sliding-window policy, the default algorithm. */
    public RateLimitPolicy(String name, int permitLimit, int windowSeconds) {
        this(name, permitLimit, windowSeconds, RateLimitAlgorithm.SLIDING_WINDOW);
    }

    /** The window in nanoseconds. */
    public long windowNanos() {
        return windowSeconds * NANOS_PER_SECOND;
    }

    /** The same policy with another size or algorithm (configuration overrides and plans). */
    public RateLimitPolicy with(int permitLimit, int windowSeconds, RateLimitAlgorithm algorithm) {
        return permitLimit == this.permitLimit && windowSeconds == this.windowSeconds && algorithm == this.algorithm
                ? this : new RateLimitPolicy(name, permitLimit, windowSeconds, algorithm);
    }

    /** True when {@code other} creates a count of the same size: permit limit, window and algorithm. */
    public boolean sameSize(RateLimitPolicy other) {
        return permitLimit == other.permitLimit && windowSeconds == other.windowSeconds && algorithm == other.algorithm;
    }

    /** {@code "burst" 5/1s} (and the algorithm, when it is not the default). */
    @Override
    public String toString() {
        return '"' + name + "\" " + permitLimit + "/" + windowSeconds + "s"
                + (algorithm == RateLimitAlgorithm.SLIDING_WINDOW ? "" : " " + algorithm);
    }
}
