package dev.ratelimit.redis.internal;

/** Redis answered a script call with something its script never answers: an answer all the same, not an outage. */
public final class UnexpectedReply extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public UnexpectedReply(String message) {
        super(message);
    }
}
