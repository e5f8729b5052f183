package dev.ratelimit.redis.cdi;

import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.redis.RedisStoreBuilder;
import dev.ratelimit.redis.internal.RedisKeys;
import dev.ratelimit.redis.internal.RedisUris;
import java.time.Duration;
import java.util.Locale;
import org.eclipse.microprofile.config.Config;

/**
 * The {@code ratelimit.redis.*} settings, read from MicroProfile Config and validated once, at start-up; the reference
 * lists them through {@link RedisConfigKeys}. The timeout and the failure policy are the engine's
 * ({@code ratelimit.store.timeout-millis} and {@code ratelimit.store.on-failure}, see {@link RateLimitSettings});
 * {@value #OLDER_TIMEOUT_MILLIS} and {@value #OLDER_ON_FAILURE} are their older spelling, which this module keeps
 * working ({@link RedisConfigKeys#aliases()}) and the engine reads when the newer key is unset.
 *
 * @param uri       {@value #URI}: where Redis is; null when unset (then the in-process store counts)
 * @param cluster   {@value #CLUSTER}: talk the Redis Cluster protocol; default false
 * @param keyPrefix {@value #KEY_PREFIX}: text in front of every key, at most 256 characters, no braces;
 *                  default {@code ratelimit:}
 * @param client    {@value #CLIENT}: which client carries the calls, {@code auto}, {@code jedis} or {@code lettuce};
 *                  default {@code auto} (not read on Quarkus, where the store runs on the Quarkus Redis client)
 */
public record RedisSettings(String uri, boolean cluster, String keyPrefix, RedisRateLimitStore.Client client) {

    public static final String URI = "ratelimit.redis.uri";
    public static final String CLUSTER = "ratelimit.redis.cluster";
    public static final String KEY_PREFIX = "ratelimit.redis.key-prefix";
    public static final String CLIENT = "ratelimit.redis.client";
    /** The older spelling of {@code ratelimit.store.timeout-millis}, read when that key is unset. */
    public static final String OLDER_TIMEOUT_MILLIS = "ratelimit.redis.timeout-millis";
    /** The older spelling of {@code ratelimit.store.on-failure}, read when that key is unset. */
    public static final String OLDER_ON_FAILURE = "ratelimit.redis.on-failure";

    private static final int MAX_PREFIX_LENGTH = 256;

    /** The settings with {@code client} {@code auto}. */
    public RedisSettings(String uri, boolean cluster, String keyPrefix) {
        this(uri, cluster, keyPrefix, RedisRateLimitStore.Client.AUTO);
    }

    /** Reads and validates every key. @throws InvalidRateLimitException naming the key and the value */
    public static RedisSettings load(Config config) {
        String uri = text(config, URI);
        if (uri != null) {
            try {
                RedisUris.parse(uri);
            } catch (RuntimeException e) {
                throw invalid(URI, RedisUris.redact(uri), "a Redis URI such as redis://host:6379, rediss://host:6380 or "
                        + "redis-sentinel://host:26379#mymaster (" + RedisUris.hideUserInfo(uri, String.valueOf(e.getMessage()))
                        + ")");
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
        String prefix = text(config, KEY_PREFIX);
        if (prefix == null) {
            prefix = RedisKeys.DEFAULT_PREFIX;
        } else if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0 || prefix.length() > MAX_PREFIX_LENGTH) {
            throw invalid(KEY_PREFIX, prefix, "at most " + MAX_PREFIX_LENGTH + " characters without '{' or '}' "
                    + "(a brace would take over the Redis Cluster hash tag)");
        }
        String clientText = text(config, CLIENT);
        RedisRateLimitStore.Client client = RedisRateLimitStore.Client.AUTO;
        if (clientText != null) {
            try {
                client = RedisRateLimitStore.Client.valueOf(clientText.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw invalid(CLIENT, clientText, "auto, jedis or lettuce");
            }
        }
        return new RedisSettings(uri, cluster, prefix, client);
    }

    /**
     * A store with these settings; {@code timeout} is how long Lettuce waits for a command ({@link
     * RedisStoreProducer} gives it longer than the engine's store timeout), and how long Jedis may block.
     */
    public RedisStoreBuilder storeBuilder(Duration timeout) {
        return RedisRateLimitStore.builder(uri).cluster(cluster).timeout(timeout).keyPrefix(keyPrefix).client(client);
    }

    /** {@link #uri()} without its password, fit for a log; null when unset. */
    public String redactedUri() {
        return uri == null ? null : RedisUris.redact(uri);
    }

    private static String text(Config config, String key) {
        return config.getOptionalValue(key, String.class).map(String::strip).filter(v -> !v.isEmpty()).orElse(null);
    }

    private static InvalidRateLimitException invalid(String key, String value, String expected) {
        return new InvalidRateLimitException("ratelimit configuration: " + key + " must be " + expected
                + ", was \"" + value + "\"");
    }
}
