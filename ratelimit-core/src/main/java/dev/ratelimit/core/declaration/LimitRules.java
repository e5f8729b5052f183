package dev.ratelimit.core.declaration;

import dev.ratelimit.core.RateLimitPolicy;
import java.util.List;
import java.util.StringJoiner;

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

    /**
     * What is wrong when a limit that counts only failures may wait: waiting for a permit only to fail makes no sense.
     *
     * @param source what sets the wait: {@code "maxWaitMillis"} or the configuration key
     */
    public static String failuresOnlyWaits(String name, String source, long maxWaitMillis) {
        return "the limit \"" + name + "\" counts only failures (failuresOnly) and may wait " + maxWaitMillis + " ms ("
                + source + "): a limit that counts only failures refuses at once; set the wait to 0";
    }

    /**
     * What is wrong when a {@code per = ARGUMENT} limit covers a method without a {@code @RateLimitKey} parameter.
     *
     * @param source what sets {@code per}: {@code "per"} or the configuration key
     */
    public static String argumentWithoutKey(String name, String source) {
        return "the limit \"" + name + "\" counts per ARGUMENT (" + source + "), but no parameter of the method carries "
                + "@RateLimitKey: mark the parameter it counts by";
    }

    /** What is wrong when a {@code per = ARGUMENT} limit is declared where the CDI interceptor does not see it. */
    public static String argumentNotOnTheMethod(String name, DeclaredOn declaredOn) {
        return "the limit \"" + name + "\" counts per ARGUMENT, which the CDI interceptor decides when the method is "
                + "invoked, but it is declared " + (declaredOn == DeclaredOn.GLOBAL ? "as the global limit"
                : "on the Application subclass (the module)") + ": declare it on the method or its class";
    }

    /** What is wrong when a resource method's {@code ARGUMENT} limit cannot be decided: its class is not a CDI bean. */
    public static String notInterceptable(String name, String where) {
        return "the limit \"" + name + "\" counts per ARGUMENT, which the CDI interceptor decides when the method is "
                + "invoked, but the class of " + where + " is not a CDI bean, so no interceptor reaches it: give it a "
                + "bean-defining annotation (@ApplicationScoped, @RequestScoped)";
    }

    /**
     * What is wrong when a {@code per = ARGUMENT} limit's digests must be alike on every instance, but no secret is
     * configured.
     */
    public static String keySecretRequired(String name, String store) {
        return "ratelimit configuration: ratelimit.key-secret is required: the limit \"" + name + "\" counts per "
                + "ARGUMENT and the store (" + store + ") is shared, so every instance must digest a value alike; set it to "
                + "the same secret of at least 16 characters on every instance";
    }

    /** What is wrong when a resource method's {@code per = ADDRESS} limit cannot tell one client from another. */
    public static String addressesUnknown(String name) {
        return "the limit \"" + name + "\" counts per ADDRESS, but this runtime cannot tell client addresses (no known "
                + "way to read a request's peer): every request would share the count of addr:unknown";
    }

    /** What is wrong when a method has two {@code @RateLimitKey} parameters. */
    public static String twoKeys(String where, List<KeyParameter> keys) {
        StringJoiner which = new StringJoiner(", ");
        for (KeyParameter key : keys) {
            which.add(key.position() + " (" + key.simpleType() + ")");
        }
        return "@RateLimitKey on " + where + ": " + keys.size() + " parameters carry it (" + which + "); "
                + "a method counts by one";
    }

    /** What is wrong when a method's {@code @RateLimitKey} is of a type whose text is not a key. */
    public static String keyTypeNotAllowed(String where, KeyParameter key) {
        return "@RateLimitKey on " + where + ": the parameter " + key.position() + " is a " + key.simpleType()
                + ", but a key must be a String or CharSequence, a primitive or its box, an enum or a UUID (another "
                + "object's toString may differ per call, or hold a secret)";
    }

    /** What is wrong when a method's {@code @RateLimitKey} is used by no {@code per = ARGUMENT} limit. */
    public static String keyWithoutArgumentLimit(String where, KeyParameter key) {
        return "@RateLimitKey on " + where + ": the parameter " + key.position() + " (" + key.simpleType()
                + ") is a key, but no per = ARGUMENT limit covers the method, so nothing counts by it";
    }

    /** What is wrong when {@code name} is used by two limits covering one method. */
    public static String duplicateName(String name) {
        return "name \"" + name + "\" is used by more than one limit covering the method (global, module, class and "
                + "method limits together); each would spend from the same count twice";
    }
}
