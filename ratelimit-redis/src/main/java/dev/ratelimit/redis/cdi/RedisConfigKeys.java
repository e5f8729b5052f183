package dev.ratelimit.redis.cdi;

import dev.ratelimit.core.config.KeyCatalogue.Alias;
import dev.ratelimit.core.config.KeyCatalogue.Key;
import dev.ratelimit.core.config.KeyCatalogue.Section;
import dev.ratelimit.core.config.KeyProvider;
import dev.ratelimit.core.config.RateLimitSettings;
import java.util.List;

/**
 * The {@code ratelimit.redis.*} keys in the configuration reference ({@code docs/configuration.md}), the unknown-key
 * warnings and the Quarkus configuration root, found through {@code META-INF/services}: what {@link RedisSettings}
 * reads, and the older names of the store timeout and failure policy that this module keeps working. Strings only, so
 * that it loads without Lettuce (absent on Quarkus, where the store runs on Quarkus' Redis client).
 */
public final class RedisConfigKeys implements KeyProvider {

    /** The artifact that reads these keys. */
    public static final String ARTIFACT = "ratelimit-redis";

    private static final List<Key> KEYS = List.of(
            new Key(RedisSettings.URI, Section.STORES,
                    "`redis://[[user]:password@]host[:port][/db]`, `rediss://...` (TLS), "
                            + "`redis-sentinel://host:26379,host2:26379#master`", null, null, false, ARTIFACT,
                    "Where Redis is. Set, every instance counts in Redis; unset, the in-process store counts. The "
                            + "password never appears in logs."),
            new Key(RedisSettings.CLUSTER, Section.STORES, "`true` or `false`", "false", null, false, ARTIFACT,
                    "`true`: the URI is a seed node of a Redis Cluster."),
            new Key(RedisSettings.KEY_PREFIX, Section.STORES, "at most 256 characters, no `{` or `}`", "ratelimit:",
                    null, false, ARTIFACT,
                    "The text in front of every Redis key; applications sharing a Redis each take their own."),
            new Key(RedisSettings.CLIENT, Section.STORES, "`auto`, `jedis` or `lettuce`", "auto", null, false, ARTIFACT,
                    "Which Redis client carries the store's calls: `auto`, Jedis for calls made on a thread that may "
                            + "block (the request threads of Jersey, Open Liberty, Payara: no hand-off to an I/O "
                            + "thread) and Lettuce for calls on an event loop; `jedis`, Jedis for every call; "
                            + "`lettuce`, Lettuce for every call (one connection that pipelines). Announcements go "
                            + "through Lettuce. On Quarkus the store runs on the Quarkus Redis client, whatever this says."));

    private static final List<Alias> ALIASES = List.of(
            new Alias(RedisSettings.OLDER_TIMEOUT_MILLIS, RateLimitSettings.STORE_TIMEOUT_MILLIS, ARTIFACT),
            new Alias(RedisSettings.OLDER_ON_FAILURE, RateLimitSettings.STORE_ON_FAILURE, ARTIFACT));

    @Override
    public List<Key> keys() {
        return KEYS;
    }

    @Override
    public List<Alias> aliases() {
        return ALIASES;
    }
}
