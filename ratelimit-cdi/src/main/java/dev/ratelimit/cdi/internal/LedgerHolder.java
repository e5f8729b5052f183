package dev.ratelimit.cdi.internal;

import dev.ratelimit.core.engine.RequestLedger;
import jakarta.enterprise.context.RequestScoped;

/**
 * Carries the request's ledger from the Jakarta REST filters to the interceptor and the programmatic API,
 * which see the request only through CDI, when the request may leave the thread of its filters
 * ({@link DefaultRequestLedgers}). Package-private, with package-private methods: no application bean can
 * inject it and overwrite a request's ledger.
 */
@RequestScoped
class LedgerHolder {

    private RequestLedger ledger;

    RequestLedger ledger() {
        return ledger;
    }

    void ledger(RequestLedger ledger) {
        this.ledger = ledger;
    }
}
