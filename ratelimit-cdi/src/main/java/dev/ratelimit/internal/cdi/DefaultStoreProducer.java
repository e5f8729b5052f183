package dev.ratelimit.internal.cdi;

import dev.ratelimit.RateLimitStore;
import dev.ratelimit.store.InProcessRateLimitStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;

/** The in-process store, unless an enabled {@code @Alternative} {@link RateLimitStore} replaces it. */
@ApplicationScoped
public class DefaultStoreProducer {

    @Produces
    @ApplicationScoped
    RateLimitStore inProcessStore(RateLimitConfiguration configuration) {
        return new InProcessRateLimitStore(configuration.settings().maxTrackedPartitions(), System::nanoTime);
    }
}
