package dev.ratelimit.cdi.internal;

import dev.ratelimit.cdi.RateLimitConfiguration;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The in-process store, unless an enabled {@code @Alternative} {@link RateLimitStore} replaces it.
 * {@code @Singleton}, not {@code @ApplicationScoped}: the engine holds the store itself, not a client proxy,
 * so that it sees the in-process store and decides without a stage.
 */
@ApplicationScoped
public class DefaultStoreProducer {

    @Produces
    @Singleton
    RateLimitStore inProcessStore(RateLimitConfiguration configuration) {
        return new InProcessRateLimitStore(configuration.settings().maxTrackedPartitions(), configuration.clock());
    }
}
