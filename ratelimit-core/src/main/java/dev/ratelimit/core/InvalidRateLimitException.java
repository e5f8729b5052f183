package dev.ratelimit.core;

/**
 * A {@code @RateLimit} declaration or a {@code ratelimit.*} setting that cannot be deployed: it fails the
 * deployment, and its message names the element (method, configuration key) and the value.
 */
public class InvalidRateLimitException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public InvalidRateLimitException(String message) {
        super(message);
    }
}
