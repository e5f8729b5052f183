package dev.ratelimit.jcache.cdi;

import dev.ratelimit.core.config.KeyCatalogue.Key;
import dev.ratelimit.core.config.KeyCatalogue.Section;
import dev.ratelimit.core.config.KeyProvider;
import java.util.List;

/**
 * The {@code ratelimit.jcache.*} keys in the configuration reference ({@code docs/configuration.md}) and the
 * unknown-key warnings, found through {@code META-INF/services}: what {@link JCacheSettings} reads. Strings only, so
 * that it loads without the JCache API.
 */
public final class JCacheConfigKeys implements KeyProvider {

    /** The artifact that reads these keys. */
    public static final String ARTIFACT = "ratelimit-jcache";

    private static final List<Key> KEYS = List.of(
            new Key(JCacheSettings.CACHE, Section.STORES, "a cache name", null, null, false, ARTIFACT,
                    "The JCache cache that keeps the counts (created when it does not exist). Set, every instance counts "
                            + "in it, on the data grid; unset, the in-process store counts."),
            new Key(JCacheSettings.PROVIDER, Section.STORES, "the class name of a `javax.cache.spi.CachingProvider`",
                    null, "the `CacheManager` CDI bean (Payara's), else the only provider on the class path", false,
                    ARTIFACT, "The JCache provider that opens the cache."),
            new Key(JCacheSettings.URI, Section.STORES,
                    "a URI, e.g. `classpath:hazelcast.xml` or `file:///etc/app/hazelcast.xml`", null,
                    "the provider's default", false, ARTIFACT,
                    "The provider's configuration. Every instance must name the same URI."),
            new Key(JCacheSettings.MODE, Section.STORES, "`auto`, `processor` or `cas`", "auto", null, false, ARTIFACT,
                    "How counts are decided: an entry processor on the member that owns the count, else compare-and-set "
                            + "(`auto`, found out at start-up); always the processor; always compare-and-set."),
            new Key(JCacheSettings.EXPIRY_SECONDS, Section.STORES, "integer, seconds, 1 .. 31622400", "4050", null,
                    false, ARTIFACT, "When the store creates the cache: how long after its last write a count is kept. "
                            + "At least the longest window plus one eighth of it."),
            new Key(JCacheSettings.THREADS, Section.STORES, "integer, 1 .. 1024", "16", null, false, ARTIFACT,
                    "The threads that wait for the grid; when 10000 calls already wait, a call fails at once and "
                            + "`ratelimit.store.on-failure` decides."));

    @Override
    public List<Key> keys() {
        return KEYS;
    }
}
