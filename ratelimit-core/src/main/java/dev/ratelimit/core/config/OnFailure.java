package dev.ratelimit.core.config;

/**
 * What a call gets while the store cannot decide it (it failed, or did not answer within
 * {@code ratelimit.store.timeout-millis}): the value of {@code ratelimit.store.on-failure}.
 */
public enum OnFailure {

    /** The call fails: a request gets 500 with an empty body. The default: a limit is never silently lifted. */
    FAIL,

    /** The call is let through uncounted ({@code RateLimit-Remaining} shows the whole limit). */
    ALLOW,

    /**
     * The call is counted in this JVM, by an in-process store kept for outages: each instance counts alone
     * until the store answers again (the local counts are not carried over).
     */
    LOCAL
}
