package dev.ratelimit.jaxrs.internal;

import dev.ratelimit.cdi.RequestLedgers;
import dev.ratelimit.core.engine.RequestLedger;
import jakarta.ws.rs.container.ContainerRequestContext;

/**
 * Where a request keeps its ledger: the request property {@link RequestLedgers#PROPERTY}, set by the first deciding
 * filter.
 */
final class Ledgers {

    private Ledgers() {
    }

    /** The request's ledger, or null when no filter of the library reached the request. */
    static RequestLedger of(ContainerRequestContext request) {
        return (RequestLedger) request.getProperty(RequestLedgers.PROPERTY);
    }
}
