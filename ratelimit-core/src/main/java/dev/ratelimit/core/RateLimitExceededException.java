package dev.ratelimit.core;

import java.util.ArrayList;
import java.util.List;

/**
 * Thrown when a limit refuses a call: by the Jakarta REST filters (mapped to a {@code 429} by the
 * default {@code ExceptionMapper}, which an application may replace), by the CDI interceptor on a bean
 * method (or the method's {@code CompletionStage} completes with it), and by the programmatic API.
 *
 * <p>Cheap to create: it carries no stack trace.
 */
public class RateLimitExceededException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient RateLimitDecision decision;

    /** @param decision a refusing decision */
    public RateLimitExceededException(RateLimitDecision decision) {
        super("Rate limit exceeded: " + names(decision), null, false, false);
        if (decision.allowed()) {
            throw new IllegalArgumentException("a RateLimitExceededException needs a refusing decision");
        }
        this.decision = decision;
    }

    /** The refusing decision: every limit decided with the refused call, the refusing ones among them. */
    public RateLimitDecision getDecision() {
        return decision;
    }

    /** Seconds until the call would be allowed (rounded up, at least 1). */
    public long getRetryAfterSeconds() {
        return decision.retryAfterSeconds();
    }

    /** The names of the refusing limits, in order. */
    public List<String> getViolatedPolicies() {
        return names(decision);
    }

    private static List<String> names(RateLimitDecision decision) {
        List<String> names = new ArrayList<>(2);
        for (RateLimitDecision.Outcome o : decision.refused()) {
            names.add(o.policy().name());
        }
        return List.copyOf(names);
    }
}
