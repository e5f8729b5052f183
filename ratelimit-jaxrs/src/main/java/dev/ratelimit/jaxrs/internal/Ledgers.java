package dev.ratelimit.jaxrs.internal;

import dev.ratelimit.cdi.RequestLedgers;
import dev.ratelimit.core.engine.RequestLedger;
import jakarta.ws.rs.container.ContainerRequestContext;

/** Where a request keeps its ledger: a request property, set by the first deciding filter. */
final class Ledgers {

    static final String PROPERTY = RequestLedgers.PROPERTY;

    private Ledgers() {
    }

    /** The request's ledger, or null when no filter of the library reached the request. */
    static RequestLedger of(ContainerRequestContext request) {
        return (RequestLedger) request.getProperty(PROPERTY);
    }
}
