package dev.ratelimit.core.lifecycle;

/**
 * How a runtime holds one of its requests (of type {@code R}) while a store's answer is pending, without holding
 * a thread: Quarkus REST suspends a request filter and resumes it on the thread that completes the answer. One
 * stateless instance per runtime; the request is passed in, so that nothing is made per request.
 *
 * @param <R> the runtime's request (its request filter's context)
 */
public interface Suspension<R> {

    /**
     * Suspends {@code request}: its next request filter runs once it is resumed.
     *
     * @return false, with nothing done, where the runtime cannot suspend this request: then its filter's thread
     *         waits for the answer (at most {@code ratelimit.store.timeout-millis})
     */
    boolean suspend(R request);

    /**
     * Resumes a request that {@link #suspend} suspended.
     *
     * @param failure null: the request goes on with its next filter; else the request fails with it, and its
     *                exception mapper answers
     */
    void resume(R request, Throwable failure);
}
