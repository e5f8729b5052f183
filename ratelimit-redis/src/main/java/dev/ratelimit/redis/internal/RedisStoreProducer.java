package dev.ratelimit.redis.internal;

import dev.ratelimit.RateLimitStore;
import dev.ratelimit.internal.cdi.RateLimitConfiguration;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.store.InProcessRateLimitStore;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.interceptor.Interceptor;
import java.lang.System.Logger.Level;
import java.time.Duration;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The store when {@code ratelimit-redis} is on the class path: Redis when {@code ratelimit.redis.uri}
 * is set, else the same in-process store as without this module.
 *
 * <p>An enabled alternative of low priority ({@code LIBRARY_BEFORE}): it replaces the default
 * producer of {@code ratelimit-cdi}, and an application's own {@code @Alternative} store, which
 * normally has an application priority, still replaces it.
 */
@Alternative
@Priority(Interceptor.Priority.LIBRARY_BEFORE)
@ApplicationScoped
public class RedisStoreProducer {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit.redis");
    /** How long start-up waits for Redis, so that the first requests do not pay for connecting. */
    private static final Duration START_UP_WAIT = Duration.ofSeconds(5);

    @Produces
    @ApplicationScoped
    RateLimitStore store(RateLimitConfiguration configuration) {
        RedisSettings redis = RedisSettings.load(ConfigProvider.getConfig(RedisStoreProducer.class.getClassLoader()));
        int maxTracked = configuration.settings().maxTrackedPartitions();
        if (redis.uri() == null) {
            LOG.log(Level.INFO, "ratelimit: ratelimit-redis is present but " + RedisSettings.URI
                    + " is not set: each instance counts alone, in process");
            return new InProcessRateLimitStore(maxTracked, System::nanoTime);
        }
        RedisRateLimitStore store = redis.newStore(maxTracked);
        store.awaitConnection(START_UP_WAIT);
        return store;
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
