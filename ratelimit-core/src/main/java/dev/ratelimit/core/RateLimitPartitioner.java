package dev.ratelimit.core;

/**
 * Chooses the partition, the key of the count a call spends from. The default: {@code sub:<name>}
 * for an authenticated caller, else {@code <header>:<value>} for the header named by
 * {@code ratelimit.partition-header}, else {@code anonymous}.
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
