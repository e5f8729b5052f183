package dev.ratelimit.core;

/**
 * The store could not decide a call (it failed, or did not answer within
 * {@code ratelimit.store.timeout-millis}) and {@code ratelimit.store.on-failure} is {@code fail}: the
 * call fails. Out of a Jakarta REST request it becomes a 500 with an empty body.
 */
public class RateLimitStoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public RateLimitStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
