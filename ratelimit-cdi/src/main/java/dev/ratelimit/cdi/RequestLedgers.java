package dev.ratelimit.cdi;

import dev.ratelimit.core.engine.RequestLedger;

/**
 * Where a request's ledger is found by what sees the request only through CDI (the interceptor, the programmatic
 * API): the Jakarta REST filters make the ledger, keep it as the request property {@link #PROPERTY}, and publish
 * it here; the header filter withdraws it. From {@link RateLimitRuntime#ledgers()}.
 *
 * <p>A runtime integration that keeps the request's ledger its own way (ratelimit-quarkus: in the request's Vert.x
 * context, made by its own filters) provides its implementation as a bean of this type; {@link RateLimitRuntime}
 * then hands that one out instead of the library's.
 */
public interface RequestLedgers {

    /** The name of the Jakarta REST request property that holds the request's ledger. */
    String PROPERTY = RequestLedger.class.getName();

    /** The current request's ledger; null outside a request or before the filters made one. */
    RequestLedger current();

    /**
     * Makes {@code ledger} the current request's, whose filters have set it as the request property
     * {@link #PROPERTY}.
     *
     * @param sameThread true when the request's resource method runs on this thread, after its filters (it does
     *                   not return a stage, suspend, or stream)
     */
    void publish(RequestLedger ledger, boolean sameThread);

    /** The request's headers are written: its ledger is no longer this thread's. Called on the thread that ends it. */
    void withdraw(RequestLedger ledger);
}
