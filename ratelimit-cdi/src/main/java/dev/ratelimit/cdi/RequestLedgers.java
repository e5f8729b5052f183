package dev.ratelimit.cdi;

import dev.ratelimit.core.engine.RequestLedger;
import jakarta.enterprise.context.ContextNotActiveException;

/**
 * Where the interceptor and the programmatic API find the current request's ledger, which the Jakarta REST
 * filters make. A plain object, not a bean: the filters call it on every request without a client proxy.
 *
 * <p>A request whose resource method runs on the thread of its filters, on a runtime whose request context
 * stays on that thread (Weld: the embedded server, Open Liberty, Payara), has its ledger on the thread, from
 * the first deciding filter to the header filter: no bean per request. Any other request (a method that
 * returns a stage or suspends, a store that answers later, Quarkus, MicroProfile Context Propagation) has it
 * in the request-scoped {@link LedgerHolder}, which the request context carries wherever the request goes.
 *
 * <p>Left on purpose: a runtime may skip the response filters for an exception no mapper handles, and then the
 * ledger stays on the thread until the next request's filters replace it. Code that runs on that thread in
 * between, outside Jakarta REST and inside a request context, would find the ended request's ledger.
 */
public final class RequestLedgers {

    /** The ledger of the request being filtered and served on this thread. */
    private static final ThreadLocal<RequestLedger> ON_THREAD = new ThreadLocal<>();

    private final LedgerHolder holder;
    private final boolean contextFollowsTheRequest;

    RequestLedgers(LedgerHolder holder, boolean contextFollowsTheRequest) {
        this.holder = holder;
        this.contextFollowsTheRequest = contextFollowsTheRequest;
    }

    /** True on a runtime whose request context may follow a request to other threads. */
    static boolean contextFollowsTheRequest() {
        return OptionalClasses.present("io.quarkus.arc.Arc") || OptionalClasses.present("io.vertx.core.Vertx")
                || OptionalClasses.present("org.eclipse.microprofile.context.ManagedExecutor");
    }

    /** The current request's ledger; null outside a request or before the filters made one. */
    public RequestLedger current() {
        RequestLedger onThread = ON_THREAD.get();
        if (onThread != null) {
            return onThread;
        }
        try {
            return holder.ledger();
        } catch (ContextNotActiveException e) {
            return null;
        }
    }

    /**
     * Makes {@code ledger} the current request's: on this thread when the request is served on it
     * ({@code sameThread}) and the request context stays here, else in the request context (nothing when no
     * request context is active: the interceptor and the programmatic API then decide on their own).
     */
    public void publish(RequestLedger ledger, boolean sameThread) {
        if (sameThread && !contextFollowsTheRequest) {
            ON_THREAD.set(ledger);
            return;
        }
        if (!contextFollowsTheRequest) {
            ON_THREAD.set(null); // a ledger left on this thread by a request that ended without its response filters
        }
        try {
            holder.ledger(ledger);
        } catch (ContextNotActiveException e) {
            // outside a request context
        }
    }

    /**
     * The request's headers are written: its ledger is no longer this thread's. Called on the thread that
     * ends the request; a ledger in the request context ends with that context.
     */
    public void withdraw(RequestLedger ledger) {
        if (ON_THREAD.get() == ledger) {
            ON_THREAD.set(null); // not remove(): the entry stays, so the next request's set is a write in place
        }
    }
}
