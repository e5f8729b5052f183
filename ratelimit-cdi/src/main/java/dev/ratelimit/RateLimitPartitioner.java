package dev.ratelimit;

import java.security.Principal;

/**
 * Chooses the partition, the key of the count a call spends from. The default: {@code sub:<name>}
 * for an authenticated caller, else {@code <header>:<value>} for the header named by
 * {@code ratelimit.partition-header}, else {@code anonymous}.
 *
 * <p>Replace it with a CDI bean implementing this interface that is an enabled {@code @Alternative}
 * ({@code @Priority}). It is called once per request (the interceptor reuses the request's partition)
 * and must not block.
 */
public interface RateLimitPartitioner {

    /**
     * @return the partition; not null. Different callers that must not share counts need different
     * partitions; avoid unbounded key spaces chosen by unauthenticated clients.
     */
    String partition(Caller caller);

    /** What is known of the caller. */
    interface Caller {
        /** The authenticated caller, or null. */
        Principal principal();

        /** The first value of a request header (name matched without regard to case), or null when absent or outside an HTTP request. */
        String header(String name);
    }
}
