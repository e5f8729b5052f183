package dev.ratelimit.core.config;

import dev.ratelimit.core.FailureStatuses;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitMode;
import dev.ratelimit.core.RateLimitPer;

/**
 * What configuration says of one limit name: {@code ratelimit.limits.<name>.*}, or
 * {@code ratelimit.plans.<plan>.limits.<name>.*} for one plan. Each value is null where the
 * configuration says nothing. Immutable.
 *
 * @param permitLimit   {@code permit-limit}, or null
 * @param windowSeconds {@code window-seconds}, or null
 * @param algorithm     {@code algorithm}, or null
 * @param mode          {@code mode}, or null
 * @param maxWaitMillis {@code max-wait-millis} (not per plan), or null
 * @param per           {@code per} (not per plan), or null
 * @param failuresOnly  {@code failures-only} (not per plan), or null
 * @param failureStatuses {@code failure-statuses} (not per plan), or null
 */
public record LimitValues(Integer permitLimit, Integer windowSeconds, RateLimitAlgorithm algorithm, RateLimitMode mode,
                          Long maxWaitMillis, RateLimitPer per, Boolean failuresOnly, FailureStatuses failureStatuses) {

    /** Nothing configured. */
    public static final LimitValues NONE = new LimitValues(null, null, null, null, null, null, null, null);

    /** Size and mode only. */
    public LimitValues(Integer permitLimit, Integer windowSeconds, RateLimitAlgorithm algorithm, RateLimitMode mode) {
        this(permitLimit, windowSeconds, algorithm, mode, null, null, null, null);
    }

    /** True when nothing is configured. */
    public boolean isEmpty() {
        return permitLimit == null && windowSeconds == null && algorithm == null && mode == null && maxWaitMillis == null
                && per == null && failuresOnly == null && failureStatuses == null;
    }

    /** True when the size is configured whole (permit limit and window): a limit declared by configuration alone. */
    public boolean declaresALimit() {
        return permitLimit != null && windowSeconds != null;
    }

    /** True when something changes the size of the limit (not only its mode). */
    public boolean changesSize() {
        return permitLimit != null || windowSeconds != null || algorithm != null;
    }
}
