package dev.ratelimit.cdi.internal;

import dev.ratelimit.cdi.RateLimitConfiguration;
import dev.ratelimit.core.RateLimitCaller;
import dev.ratelimit.core.RateLimitPartitioner;
import dev.ratelimit.core.engine.HeaderPartitioner;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;

/**
 * {@code sub:<principal name>} for an authenticated caller, else {@code <header>:<value>} for the
 * configured {@code ratelimit.partition-header}, else {@code anonymous}. An enabled {@code @Alternative}
 * replaces it. Dependent: the runtime holds the instance itself, so a request calls it without a client
 * proxy.
 */
@Dependent
public class DefaultRateLimitPartitioner implements RateLimitPartitioner {

    @Inject
    RateLimitConfiguration configuration;

    private HeaderPartitioner partitioner;

    @PostConstruct
    void init() {
        partitioner = new HeaderPartitioner(configuration.settings().partitionHeader());
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
