package dev.ratelimit.internal.config;

import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitScope;
import dev.ratelimit.internal.resolve.InvalidRateLimitException;
import dev.ratelimit.store.InProcessRateLimitStore;
import java.util.Locale;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;

/**
 * The {@code ratelimit.*} settings (SPEC 8), read from MicroProfile Config and validated once, at
 * start-up.
 *
 * @param partitionHeader      header that partitions requests without an authenticated caller, or null
 * @param maxTrackedPartitions most counts the in-process store keeps
 * @param global               the global limit, or null
 */
public record RateLimitSettings(String partitionHeader, int maxTrackedPartitions, RateLimitPolicy global) {

    public static final String PARTITION_HEADER = "ratelimit.partition-header";
    public static final String MAX_TRACKED_PARTITIONS = "ratelimit.max-tracked-partitions";
    public static final String GLOBAL_PERMIT_LIMIT = "ratelimit.global.permit-limit";
    public static final String GLOBAL_WINDOW_SECONDS = "ratelimit.global.window-seconds";
    public static final String GLOBAL_NAME = "ratelimit.global.name";
    public static final String GLOBAL_SCOPE = "ratelimit.global.scope";

    /** Reads and validates every key. @throws InvalidRateLimitException naming the key and the value */
    public static RateLimitSettings load(Config config) {
        String header = text(config, PARTITION_HEADER);
        if (header != null && !header.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")) {
            throw invalid(PARTITION_HEADER, header, "an HTTP header name");
        }
        int maxTracked = integer(config, MAX_TRACKED_PARTITIONS, InProcessRateLimitStore.DEFAULT_MAX_TRACKED_PARTITIONS, 1);
        // every global key is validated, also while no global limit is set: a typo must not wait to bite
        int window = integer(config, GLOBAL_WINDOW_SECONDS, 60, 1);
        if (window > RateLimitPolicy.MAX_WINDOW_SECONDS) {
            throw invalid(GLOBAL_WINDOW_SECONDS, String.valueOf(window),
                    "an integer from 1 to " + RateLimitPolicy.MAX_WINDOW_SECONDS);
        }
        String name = Optional.ofNullable(text(config, GLOBAL_NAME)).orElse("application");
        if (!name.matches("[A-Za-z0-9._-]{1,64}")) {
            throw invalid(GLOBAL_NAME, name, "1-64 characters from [A-Za-z0-9._-]");
        }
        String scopeText = Optional.ofNullable(text(config, GLOBAL_SCOPE)).orElse("TRANSPORT");
        RateLimitScope scope;
        try {
            scope = RateLimitScope.valueOf(scopeText.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw invalid(GLOBAL_SCOPE, scopeText, "TRANSPORT or PRINCIPAL");
        }
        RateLimitPolicy global = null;
        if (text(config, GLOBAL_PERMIT_LIMIT) != null) {
            global = new RateLimitPolicy(name, integer(config, GLOBAL_PERMIT_LIMIT, 0, 1), window, scope);
        }
        return new RateLimitSettings(header, maxTracked, global);
    }

    private static String text(Config config, String key) {
        Optional<String> value = config.getOptionalValue(key, String.class);
        return value.map(String::strip).filter(v -> !v.isEmpty()).orElse(null);
    }

    private static int integer(Config config, String key, int fallback, int min) {
        String value = text(config, key);
        if (value == null) {
            return fallback;
        }
        try {
            int parsed = Integer.parseInt(value);
            if (parsed >= min) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw invalid(key, value, "an integer >= " + min);
    }

    private static InvalidRateLimitException invalid(String key, String value, String expected) {
        return new InvalidRateLimitException("ratelimit configuration: " + key + " must be " + expected
                + ", was \"" + value + "\"");
    }
}
