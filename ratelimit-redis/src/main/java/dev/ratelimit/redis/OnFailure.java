package dev.ratelimit.redis;

/**
 * What a request gets while Redis cannot decide it (unreachable, or no answer within the timeout):
 * the value of {@code ratelimit.redis.on-failure}.
 */
public enum OnFailure {

    /** The request fails: 500 with an empty body (SPEC 7). The default: a limit is never silently lifted. */
    FAIL,

    /** The request is let through uncounted ({@code RateLimit-Remaining} = its permit limit). */
    ALLOW,

    /**
     * The request is counted in this JVM, by an in-process store kept for outages: each instance counts
     * alone until Redis answers again; then Redis counts again (the local counts are not carried over).
     */
    LOCAL
}
