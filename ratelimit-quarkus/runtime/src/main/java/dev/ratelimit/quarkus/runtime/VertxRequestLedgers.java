package dev.ratelimit.quarkus.runtime;

import dev.ratelimit.cdi.RequestLedgers;
import dev.ratelimit.core.engine.RequestLedger;
import io.quarkus.arc.Arc;
import jakarta.enterprise.context.ContextNotActiveException;
import jakarta.inject.Singleton;
import org.jboss.resteasy.reactive.server.core.CurrentRequestManager;
import org.jboss.resteasy.reactive.server.core.ResteasyReactiveRequestContext;

/**
 * Where the CDI interceptor and the programmatic API find the request's ledger with the extension: the
 * {@link RequestState} of Quarkus REST's current request (which follows the request to whatever thread serves it:
 * the event loop, a worker, a stage's continuation on its context). A limited bean or a
 * programmatic call inside a request whose method no limit covers starts the request's state itself, so that it
 * joins the request (its partition, its headers, its give-back) all the same. The library's runtime hands this out
 * instead of its own ({@link RequestLedgers}).
 */
@Singleton
public class VertxRequestLedgers implements RequestLedgers {

    /** The resource methods' bindings, looked up by the first request that needs them. */
    private volatile Bindings bindings;

    @Override
    public RequestLedger current() {
        ResteasyReactiveRequestContext request = currentRequest();
        MethodBinding none = request == null ? null : bindings().none();
        if (none == null) {
            return null; // outside a request, or before run-time init
        }
        return RequestState.ofOrStart(request, none).ledger();
    }

    /** The library's own filters make a ledger only where the extension is not in use; kept for them all the same. */
    @Override
    public void publish(RequestLedger ledger, boolean sameThread) {
        ResteasyReactiveRequestContext request = currentRequest();
        MethodBinding none = request == null ? null : bindings().none();
        if (none != null) {
            RequestState.ofOrStart(request, none).adopt(ledger);
        }
    }

    private Bindings bindings() {
        Bindings found = bindings;
        if (found == null) {
            found = Arc.container().instance(Bindings.class).get();
            bindings = found;
        }
        return found;
    }

    @Override
    public void withdraw(RequestLedger ledger) {
        // the request's context ends with the request
    }

    private static ResteasyReactiveRequestContext currentRequest() {
        try {
            return CurrentRequestManager.get();
        } catch (ContextNotActiveException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return "RequestLedgers[in the request's routing context (ratelimit-quarkus)]";
    }
}
