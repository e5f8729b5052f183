package dev.ratelimit.redis.internal;

/** Redis could not decide a request (on-failure = fail): the request fails with 500. */
public final class RedisStoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public RedisStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
