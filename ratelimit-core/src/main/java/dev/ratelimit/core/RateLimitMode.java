package dev.ratelimit.core;

/**
 * What a limit does with the requests it decides: {@code ratelimit.mode} for every limit,
 * {@code ratelimit.limits.<name>.mode} for one, {@code ratelimit.plans.<plan>.limits.<name>.mode} for one
 * plan's callers.
 */
public enum RateLimitMode {

    /** The default: the limit refuses a request over it (429). */
    ENFORCE,

    /**
     * The limit is decided and counted but never refuses and writes no header: a request it would have
     * refused goes on, spends nothing from it, and is counted in the metric outcome
     * {@code shadow_refused} and in a log line at most once a minute. For rolling a limit out safely.
     */
    SHADOW,

    /** The limit is not applied at all, as if it were not declared. */
    OFF
}
