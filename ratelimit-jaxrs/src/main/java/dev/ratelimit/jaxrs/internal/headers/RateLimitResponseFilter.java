package dev.ratelimit.jaxrs.internal.headers;

import dev.ratelimit.RateLimitStore;
import dev.ratelimit.internal.engine.RequestLedger;
import dev.ratelimit.jaxrs.RateLimitExceptionMapper;
import dev.ratelimit.jaxrs.internal.decide.DecidingFilter;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;

/**
 * Ends a limited request: gives back its permits when it was refused (a 429, or another filter's
 * refusal: either way it spends nothing), and writes the rate-limit headers on every response the
 * limiter reached, except another filter's refusal.
 */
public final class RateLimitResponseFilter implements ContainerResponseFilter {

    private final RateLimitStore store;

    public RateLimitResponseFilter(RateLimitStore store) {
        this.store = store;
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        RequestLedger ledger = DecidingFilter.ledger(request);
        if (ledger == null) {
            return;
        }
        if (ledger.refusal() != null) {
            if (response.getStatus() >= 400) {
                ledger.releaseAll(store);
            }
            if (response.getStatus() != RateLimitExceptionMapper.TOO_MANY_REQUESTS) {
                return;
            }
        }
        RateLimitHeaders.write(ledger, response.getHeaders());
    }
}
