package dev.ratelimit.jaxrs.internal;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitExceededException;
import dev.ratelimit.core.engine.RequestLedger;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;

/**
 * The last request filter: answers a recorded refusal with {@link RateLimitExceededException} (mapped to
 * the 429). Running last means a later filter's own refusal (401, 403, 415...) wins, and the body is never
 * read.
 */
public final class DeferredRefusalFilter implements ContainerRequestFilter {

    /** After every other request filter. */
    public static final int PRIORITY = Integer.MAX_VALUE;

    @Override
    public void filter(ContainerRequestContext request) {
        RequestLedger ledger = Ledgers.of(request);
        if (ledger == null) {
            return;
        }
        RateLimitDecision refusal = ledger.refusal();
        if (refusal != null) {
            throw new RateLimitExceededException(refusal);
        }
    }
}
