package dev.ratelimit.core.declaration;

import dev.ratelimit.core.RateLimitPolicy;

/**
 * The messages of the rules a declared limit is held to, each written here once: by {@link LimitResolver} (the
 * declarations), and by the engine's binder (the same rules, for values that only the configuration sets). A
 * policy's own ranges are {@link RateLimitPolicy}'s. Callers prefix the message with where the limit was declared:
 * {@code "@RateLimit on TodoResource.all(): " + message}.
 */
public final class LimitRules {

    private LimitRules() {
    }

    /** Null when {@code 1 <= cost <= permitLimit}; else what is wrong, naming the value. */
    public static String costError(int cost, int permitLimit) {
        return costError(cost, permitLimit, "");
    }

    /**
     * {@link #costError(int, int)}, saying where the permit limit comes from: {@code note} follows it, e.g.
     * {@code " for the plan \"gold\", after configuration"}.
     */
    public static String costError(int cost, int permitLimit, String note) {
        if (cost >= 1 && cost <= permitLimit) {
            return null;
        }
        return "cost must be between 1 and permitLimit (" + permitLimit + note + "), was " + cost;
    }

    /** Null when {@code maxWaitMillis >= 0}; else what is wrong, naming the value. */
    public static String maxWaitError(long maxWaitMillis) {
        return maxWaitMillis >= 0 ? null : "maxWaitMillis must be >= 0, was " + maxWaitMillis;
    }

    /**
     * What is wrong when a limit of a resource method (decided by the Jakarta REST filter) may wait: a server
     * refuses; waiting is for calls to other services.
     *
     * @param source what sets the wait: {@code "maxWaitMillis"} or the configuration key
     */
    public static String resourceMethodWaits(String name, String source, long maxWaitMillis) {
        return "the limit \"" + name + "\" may wait " + maxWaitMillis + " ms (" + source + "), but a resource method "
                + "refuses at once: waiting is for calls to other services (a CDI bean or a MicroProfile Rest Client "
                + "method)";
    }

    /** What is wrong when {@code name} is used by two limits covering one method. */
    public static String duplicateName(String name) {
        return "name \"" + name + "\" is used by more than one limit covering the method (global, module, class and "
                + "method limits together); each would spend from the same count twice";
    }
}
