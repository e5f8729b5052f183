package dev.ratelimit.jaxrs.internal;

import dev.ratelimit.core.RateLimitExceededException;
import dev.ratelimit.core.lifecycle.RequestLifecycle;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;

/**
 * The last request filter: answers a recorded refusal with {@link RateLimitExceededException} (mapped to
 * the 429: {@link RequestLifecycle#answerRefusal}). Running last means a later filter's own refusal (401, 403,
 * 415...) wins, and the body is never read.
 */
public final class DeferredRefusalFilter implements ContainerRequestFilter {

    /** After every other request filter. */
    public static final int PRIORITY = Integer.MAX_VALUE;

    @Override
    public void filter(ContainerRequestContext request) {
        RequestLifecycle.answerRefusal(DecidingFilter.ledgerOf(request));
    }
}
