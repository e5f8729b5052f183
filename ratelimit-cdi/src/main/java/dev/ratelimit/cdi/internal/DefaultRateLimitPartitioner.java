package dev.ratelimit.cdi.internal;

import dev.ratelimit.cdi.RateLimitConfiguration;
import dev.ratelimit.core.RateLimitCaller;
import dev.ratelimit.core.RateLimitPartitioner;
import dev.ratelimit.core.address.OrderedPartitioner;
import dev.ratelimit.core.config.RateLimitSettings;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;

/**
 * The first of {@code ratelimit.partition-by} (default {@code principal,header}) that gives a value:
 * {@code sub:<principal name>} for an authenticated caller, {@code <header>:<value>} for the configured
 * {@code ratelimit.partition-header}, {@code addr:<network>} for the client address; else {@code anonymous}.
 * An enabled {@code @Alternative} replaces it. Dependent: the runtime holds the instance itself, so a request calls
 * it without a client proxy.
 */
@Dependent
public class DefaultRateLimitPartitioner implements RateLimitPartitioner {

    @Inject
    RateLimitConfiguration configuration;

    private OrderedPartitioner partitioner;

    @PostConstruct
    void init() {
        try {
            RateLimitSettings settings = configuration.settings();
            partitioner = new OrderedPartitioner(settings.partitionBy(), settings.partitionHeader(), settings.clientAddresses());
        } catch (RuntimeException e) {
            // a malformed setting: named in the log, where some runtimes name only this method
            throw StartupFailures.logged(e);
        }
    }

    @Override
    public String partition(RateLimitCaller caller) {
        return partitioner.partition(caller);
    }

    @Override
    public String toString() {
        // also named in the container's message when its initialisation fails (a malformed setting): never throw here
        return partitioner == null ? "DefaultRateLimitPartitioner (not initialised)" : partitioner.toString();
    }
}
