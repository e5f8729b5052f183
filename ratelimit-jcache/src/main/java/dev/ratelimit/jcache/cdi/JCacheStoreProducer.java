package dev.ratelimit.jcache.cdi;

import dev.ratelimit.cdi.RateLimitConfiguration;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.jcache.JCacheRateLimitStore;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import jakarta.interceptor.Interceptor;
import java.lang.System.Logger.Level;
import java.time.Duration;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.spi.CachingProvider;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The store when {@code ratelimit-jcache} is on the class path: a JCache cache when {@code ratelimit.jcache.cache} is
 * set, else the same in-process store as without this module.
 *
 * <p>The cache manager: the provider named by {@code ratelimit.jcache.provider} and {@code ratelimit.jcache.uri} when
 * either is set; else a {@code CacheManager} CDI bean when there is one (Payara Micro and Payara Server offer theirs,
 * on their Hazelcast cluster; an application may produce its own); else the JCache provider on the class path, with
 * its default configuration.
 *
 * <p>An enabled alternative of low priority ({@code LIBRARY_BEFORE}), as {@code ratelimit-redis}'s producer: it
 * replaces the default producer of {@code ratelimit-cdi}, and an application's own {@code @Alternative} store still
 * replaces it. One shared store module per application. {@code @Singleton}: the engine holds the store itself.
 */
@Alternative
@Priority(Interceptor.Priority.LIBRARY_BEFORE)
@ApplicationScoped
public class JCacheStoreProducer {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit.jcache");

    @Produces
    @Singleton
    RateLimitStore store(RateLimitConfiguration configuration, Instance<CacheManager> managers) {
        JCacheSettings settings = JCacheSettings.load(ConfigProvider.getConfig(JCacheStoreProducer.class.getClassLoader()));
        if (settings.cache() == null) {
            LOG.log(Level.INFO, "ratelimit: ratelimit-jcache is present but " + JCacheSettings.CACHE
                    + " is not set: each instance counts alone, in process");
            return new InProcessRateLimitStore(configuration.settings().maxTrackedPartitions(), configuration.clock());
        }
        CacheManager manager = manager(settings, managers);
        Cache<String, byte[]> cache = JCacheRateLimitStore.openCache(manager, settings.cache(),
                Duration.ofSeconds(settings.expirySeconds()));
        JCacheRateLimitStore.Builder builder = JCacheRateLimitStore.builder(cache).mode(settings.mode())
                .threads(settings.threads());
        if (configuration.manualClock() != null) {
            builder.nanoClock(configuration.manualClock()); // ratelimit.test.manual-clock=true: tests move time
        }
        return builder.build();
    }

    private static CacheManager manager(JCacheSettings settings, Instance<CacheManager> managers) {
        ClassLoader loader = JCacheStoreProducer.class.getClassLoader();
        if (settings.provider() == null && settings.uri() == null && managers.isResolvable()) {
            return managers.get();
        }
        CachingProvider provider = settings.provider() == null ? Caching.getCachingProvider(loader)
                : Caching.getCachingProvider(settings.provider(), loader);
        // the provider's default class loader: Hazelcast puts any other into the cache's name, which would then differ
        // from one JVM to the next, and each instance would count in a cache of its own
        return provider.getCacheManager(settings.uri() == null ? provider.getDefaultURI() : settings.uri(),
                provider.getDefaultClassLoader());
    }

    void close(@Disposes RateLimitStore store) {
        if (store instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                LOG.log(Level.WARNING, "ratelimit: closing " + store + " failed", e);
            }
        }
    }
}
