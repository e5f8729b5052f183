package dev.ratelimit.core;

/**
 * Whose count a limit spends from: each caller's own (the partition the partitioner chooses), one count for the whole
 * application, one per client address, or one per value of a method's argument. Limits that share a name share a
 * count, so they must agree on it.
 */
public enum RateLimitPer {

    /** The default: one count per partition (the caller the partitioner finds), and per plan. */
    CALLER,

    /**
     * One count for every caller, whatever the partitioner says (the partition {@code application}; still one per
     * plan when plans change the limit): a partner's limit is on the whole application, not on each of its callers.
     */
    APPLICATION,

    /**
     * One count per client address ({@code addr:<client>}, found as {@code ratelimit.partition-by=address} finds it:
     * trusted proxies and prefixes apply), whatever {@code ratelimit.partition-by} says; {@code addr:unknown} outside
     * an HTTP request. For anonymous endpoints such as a log-in, without counting every other limit by address.
     */
    ADDRESS,

    /**
     * One count per value of the method's {@code @RateLimitKey} parameter (an account, a phone number), normalised and
     * kept only as a keyed digest ({@code arg:<digest>}). Decided when the method is invoked, by the CDI interceptor.
     */
    ARGUMENT
}
