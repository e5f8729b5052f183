package dev.ratelimit.core;

/**
 * Whose count a limit spends from (SPEC 20): each caller's own (the partition the partitioner chooses), or one
 * count for the whole application. Limits that share a name share a count, so they must agree on it.
 */
public enum RateLimitPer {

    /** The default: one count per partition (the caller, SPEC 5), and per plan. */
    CALLER,

    /**
     * One count for every caller, whatever the partitioner says (the partition {@code application}; still one per
     * plan when plans change the limit): a partner's limit is on the whole application, not on each of its callers.
     */
    APPLICATION
}
