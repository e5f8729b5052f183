package dev.ratelimit.redis.internal;

import dev.ratelimit.internal.resolve.InvalidRateLimitException;
import dev.ratelimit.redis.OnFailure;
import dev.ratelimit.redis.RedisRateLimitStore;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;

/**
 * The {@code ratelimit.redis.*} settings, read from MicroProfile Config and validated once, at start-up.
 *
 * @param uri       {@value #URI}: where Redis is; null when unset (then the in-process store counts)
 * @param cluster   {@value #CLUSTER}: talk the Redis Cluster protocol; default false
 * @param timeout   {@value #TIMEOUT_MILLIS}: the longest a request waits for Redis, 1..60000 ms; default 250
 * @param keyPrefix {@value #KEY_PREFIX}: text in front of every key, no braces; default {@code ratelimit:}
 * @param onFailure {@value #ON_FAILURE}: {@code fail} (default), {@code allow} or {@code local}
 */
public record RedisSettings(String uri, boolean cluster, Duration timeout, String keyPrefix, OnFailure onFailure) {

    public static final String URI = "ratelimit.redis.uri";
    public static final String CLUSTER = "ratelimit.redis.cluster";
    public static final String TIMEOUT_MILLIS = "ratelimit.redis.timeout-millis";
    public static final String KEY_PREFIX = "ratelimit.redis.key-prefix";
    public static final String ON_FAILURE = "ratelimit.redis.on-failure";

    private static final int MAX_TIMEOUT_MILLIS = 60_000;
    private static final int MAX_PREFIX_LENGTH = 256;

    /** Reads and validates every key. @throws InvalidRateLimitException naming the key and the value */
    public static RedisSettings load(Config config) {
        String uri = text(config, URI);
        if (uri != null) {
            try {
                RedisRateLimitStore.builder(uri);
            } catch (RuntimeException e) {
                throw invalid(URI, redact(uri), "a Redis URI such as redis://host:6379, rediss://host:6380 or "
                        + "redis-sentinel://host:26379#mymaster (" + hideUserInfo(uri, String.valueOf(e.getMessage())) + ")");
            }
        }
        String clusterText = text(config, CLUSTER);
        boolean cluster = false;
        if (clusterText != null) {
            if (!clusterText.equalsIgnoreCase("true") && !clusterText.equalsIgnoreCase("false")) {
                throw invalid(CLUSTER, clusterText, "true or false");
            }
            cluster = Boolean.parseBoolean(clusterText.toLowerCase(Locale.ROOT));
        }
        Duration timeout = RedisRateLimitStore.DEFAULT_TIMEOUT;
        String timeoutText = text(config, TIMEOUT_MILLIS);
        if (timeoutText != null) {
            int millis = -1;
            try {
                millis = Integer.parseInt(timeoutText);
            } catch (NumberFormatException e) {
                // reported below
            }
            if (millis < 1 || millis > MAX_TIMEOUT_MILLIS) {
                throw invalid(TIMEOUT_MILLIS, timeoutText, "an integer from 1 to " + MAX_TIMEOUT_MILLIS);
            }
            timeout = Duration.ofMillis(millis);
        }
        String prefix = Optional.ofNullable(text(config, KEY_PREFIX)).orElse(RedisKeys.DEFAULT_PREFIX);
        if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0 || prefix.length() > MAX_PREFIX_LENGTH) {
            throw invalid(KEY_PREFIX, prefix, "at most " + MAX_PREFIX_LENGTH + " characters without '{' or '}' "
                    + "(a brace would take over the Redis Cluster hash tag)");
        }
        OnFailure onFailure = OnFailure.FAIL;
        String onFailureText = text(config, ON_FAILURE);
        if (onFailureText != null) {
            try {
                onFailure = OnFailure.valueOf(onFailureText.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw invalid(ON_FAILURE, onFailureText, "fail, allow or local");
            }
        }
        return new RedisSettings(uri, cluster, timeout, prefix, onFailure);
    }

    /** A store with these settings; {@code maxTrackedPartitions} bounds the in-process counts of {@code local}. */
    public RedisRateLimitStore newStore(int maxTrackedPartitions) {
        return RedisRateLimitStore.builder(uri)
                .cluster(cluster)
                .timeout(timeout)
                .keyPrefix(keyPrefix)
                .onFailure(onFailure)
                .maxTrackedPartitions(maxTrackedPartitions)
                .build();
    }

    private static String text(Config config, String key) {
        return config.getOptionalValue(key, String.class).map(String::strip).filter(v -> !v.isEmpty()).orElse(null);
    }

    /** {@code text} without the user info (password) of {@code uri}. */
    private static String hideUserInfo(String uri, String text) {
        java.util.regex.Matcher userInfo = java.util.regex.Pattern.compile("//([^/@]*)@").matcher(uri);
        return userInfo.find() && !userInfo.group(1).isEmpty() ? text.replace(userInfo.group(1), "***") : text;
    }

    /** A URI without its password, fit for a log or an error message. */
    public static String redact(String uri) {
        return uri.replaceFirst("//[^/@]*@", "//***@");
    }

    private static InvalidRateLimitException invalid(String key, String value, String expected) {
        return new InvalidRateLimitException("ratelimit configuration: " + key + " must be " + expected
                + ", was \"" + value + "\"");
    }
}
