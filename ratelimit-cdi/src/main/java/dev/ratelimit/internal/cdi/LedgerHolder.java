package dev.ratelimit.internal.cdi;

import dev.ratelimit.internal.engine.RequestLedger;
import jakarta.enterprise.context.RequestScoped;

/** Carries the request's ledger from the Jakarta REST filters to the interceptor. */
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
