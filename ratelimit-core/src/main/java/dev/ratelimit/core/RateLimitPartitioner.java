package dev.ratelimit.core;

/**
 * Chooses the partition, the key of the count a call spends from. The default looks for the caller in the
 * order of {@code ratelimit.partition-by} (default {@code principal,header}): {@code sub:<name>} for an
 * authenticated caller, {@code <header>:<value>} for the header named by {@code ratelimit.partition-header},
 * {@code addr:<network>} for the client address; else {@code anonymous}.
 *
 * <p>Replace it with a CDI bean implementing this interface that is an enabled {@code @Alternative}
 * ({@code @Priority}). It is called once per request (bean limits and the programmatic API reuse the
 * request's partition) and must not block.
 */
@FunctionalInterface
public interface RateLimitPartitioner {

    /**
     * @return the partition; not null. Different callers that must not share counts need different
     * partitions; avoid unbounded key spaces chosen by unauthenticated clients.
     */
    String partition(RateLimitCaller caller);
}
