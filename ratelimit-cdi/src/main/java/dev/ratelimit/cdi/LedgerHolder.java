package dev.ratelimit.cdi;

import dev.ratelimit.core.engine.RequestLedger;
import jakarta.enterprise.context.RequestScoped;

/**
 * Carries the request's ledger from the Jakarta REST filters to the interceptor and the programmatic API,
 * which see the request only through CDI, when the request may leave the thread of its filters
 * ({@link RequestLedgers}).
 */
@RequestScoped
public class LedgerHolder {

    private RequestLedger ledger;

    public RequestLedger ledger() {
        return ledger;
    }

    public void ledger(RequestLedger ledger) {
        this.ledger = ledger;
    }
}
