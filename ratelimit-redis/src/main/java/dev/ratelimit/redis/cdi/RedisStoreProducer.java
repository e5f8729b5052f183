package dev.ratelimit.redis.cdi;

import dev.ratelimit.cdi.RateLimitConfiguration;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.redis.RedisStoreBuilder;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import jakarta.interceptor.Interceptor;
import java.lang.System.Logger.Level;
import java.time.Duration;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The store when {@code ratelimit-redis} is on the class path: Redis when {@code ratelimit.redis.uri} is set,
 * else the same in-process store as without this module. The runtimes this producer serves (Jersey on Grizzly, Open
 * Liberty, Payara) run requests on threads that may block, so the store's calls go through Jedis there
 * ({@code ratelimit.redis.client=auto}, {@link RedisRateLimitStore.Client}); Quarkus has a producer of its own.
 *
 * <p>An enabled alternative of low priority ({@code LIBRARY_BEFORE}): it replaces the default producer of
 * {@code ratelimit-cdi}, and an application's own {@code @Alternative} store, which normally has an
 * application priority, still replaces it. {@code @Singleton}, as the default: the engine holds the store
 * itself, not a client proxy (and so sees an in-process store, which decides without a stage).
 */
@Alternative
@Priority(Interceptor.Priority.LIBRARY_BEFORE)
@ApplicationScoped
public class RedisStoreProducer {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit.redis");
    /** How long start-up waits for Redis, so that the first requests do not pay for connecting. */
    private static final Duration START_UP_WAIT = Duration.ofSeconds(5);

    @Produces
    @Singleton
    RateLimitStore store(RateLimitConfiguration configuration) {
        RedisSettings redis = RedisSettings.load(ConfigProvider.getConfig(RedisStoreProducer.class.getClassLoader()));
        if (redis.uri() == null) {
            LOG.log(Level.INFO, "ratelimit: ratelimit-redis is present but " + RedisSettings.URI
                    + " is not set: each instance counts alone, in process");
            return new InProcessRateLimitStore(configuration.settings().maxTrackedPartitions(), configuration.clock());
        }
        // Lettuce waits longer than the engine: a call the engine decided by its policy after the store timeout
        // may still be answered, and the engine then gives its permits back; a bound all the same, so that
        // commands never pile up behind a Redis that hangs
        long timeout = configuration.settings().timeoutMillis();
        RedisStoreBuilder builder = redis.storeBuilder(Duration.ofMillis(timeout + Math.max(timeout, 1_000L)))
                // Jedis blocks the request thread, which the engine cannot answer before the call returns: its bound
                .blockingTimeout(Duration.ofMillis(timeout));
        if (configuration.manualClock() != null) {
            builder.nanoClock(configuration.manualClock()); // ratelimit.test.manual-clock=true: tests move time
        }
        RedisRateLimitStore store = builder.build();
        if (!store.awaitConnection(START_UP_WAIT)) {
            // not a warning: the engine warns once per outage, when a call fails
            LOG.log(Level.INFO, "ratelimit: " + store + " is not connected after " + START_UP_WAIT.toSeconds()
                    + " s; it keeps connecting in the background");
        }
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
