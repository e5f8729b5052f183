package dev.ratelimit.internal.resolve;

/** A {@code @RateLimit} declaration or setting that cannot be deployed; the message names the element and the value. */
public final class InvalidRateLimitException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public InvalidRateLimitException(String message) {
        super(message);
    }
}
