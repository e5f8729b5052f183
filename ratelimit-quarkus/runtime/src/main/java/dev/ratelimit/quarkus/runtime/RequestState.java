package dev.ratelimit.quarkus.runtime;

import dev.ratelimit.core.RateLimitCaller;
import dev.ratelimit.core.address.ClientAddresses;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.core.headers.RateLimitHeaders;
import dev.ratelimit.jaxrs.caller.JaxrsCaller;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.net.SocketAddress;
import jakarta.ws.rs.core.SecurityContext;
import org.jboss.resteasy.reactive.server.core.ResteasyReactiveRequestContext;
import org.jboss.resteasy.reactive.server.vertx.VertxResteasyReactiveRequestContext;

/**
 * What one limited request carries from its resource method's handler to its response filter: the method's binding
 * and the request's ledger, made when a limit first needs it. Kept in the data of the request's Vert.x routing
 * context, a map the request holds already (one entry per request, no map of its own; Quarkus REST's own request
 * properties would make one), reached from the request itself on whatever thread serves it: the event loop, a
 * worker, the thread of a remote store that resumed it. The interceptor and the programmatic API reach it through
 * Quarkus REST's current request. It is also the request's {@link RateLimitCaller} ({@link JaxrsCaller}: the Jakarta
 * REST security context, the Vert.x request's headers, and the Vert.x connection's peer) and the
 * {@link RateLimitHeaders.Sink} of its headers (the Vert.x response's header map, names encoded once).
 *
 * <p>One request at a time: its parts run one after the other, possibly on different threads (the runtime hands the
 * request over with a happens-before edge). The ledger is made at most once, under this object's lock; a state
 * started from a bean (not from the method's handler) is started under the request's lock.
 */
final class RequestState extends JaxrsCaller implements RateLimitHeaders.Sink {

    /** The key of the entry in the request's routing context: the class name, which no other code uses. */
    private static final String KEY = RequestState.class.getName();

    /** The library's header names, encoded once, in the order of {@link RateLimitHeaders#ALL}. */
    private static final CharSequence[] ENCODED = new CharSequence[RateLimitHeaders.ALL.size()];

    static {
        for (int i = 0; i < ENCODED.length; i++) {
            ENCODED[i] = HttpHeaders.createOptimized(RateLimitHeaders.ALL.get(i));
        }
    }

    final ResteasyReactiveRequestContext request;
    MethodBinding method;
    private volatile RequestLedger ledger;

    private RequestState(ResteasyReactiveRequestContext request, MethodBinding method) {
        this.request = request;
        this.method = method;
    }

    /** The state of {@code request}, or null when none was started (the request reached no limited method). */
    static RequestState of(ResteasyReactiveRequestContext request) {
        Object state = request instanceof VertxResteasyReactiveRequestContext vertx ? vertx.getContext().get(KEY)
                : request.getProperty(KEY);
        return (RequestState) state;
    }

    /** Starts (or, for a request that reaches a second method, such as a sub-resource's, moves) the request's state. */
    static RequestState start(ResteasyReactiveRequestContext request, MethodBinding method) {
        RequestState state = of(request);
        if (state != null) {
            state.method = method;
            return state;
        }
        return put(request, new RequestState(request, method));
    }

    /**
     * The request's state; started without a limit of its own ({@code none}) when it has none (a bean limit joins the
     * request).
     */
    static RequestState ofOrStart(ResteasyReactiveRequestContext request, MethodBinding none) {
        RequestState state = of(request);
        if (state != null) {
            return state;
        }
        synchronized (request) {
            state = of(request);
            return state != null ? state : put(request, new RequestState(request, none));
        }
    }

    private static RequestState put(ResteasyReactiveRequestContext request, RequestState state) {
        if (request instanceof VertxResteasyReactiveRequestContext vertx) {
            vertx.getContext().put(KEY, state);
        } else {
            request.setProperty(KEY, state);
        }
        return state;
    }

    /** Makes {@code made} the request's ledger, unless it has one already. */
    synchronized void adopt(RequestLedger made) {
        if (ledger == null) {
            ledger = made;
        }
    }

    /** The engine the request's limits were bound to. */
    RateLimitEngine engine() {
        return method.engine;
    }

    /** The request's ledger if a limit made it; else null. */
    RequestLedger ledgerIfAny() {
        return ledger;
    }

    /** The request's ledger, made now if no limit has yet: its partition is chosen once, here. */
    RequestLedger ledger() {
        RequestLedger made = ledger;
        if (made == null) {
            synchronized (this) {
                made = ledger;
                if (made == null) {
                    made = engine().ledger(this, method.intercepted);
                    ledger = made;
                }
            }
        }
        return made;
    }

    // ---------------------------------------------------------------- the caller

    @Override
    public String header(String name) {
        return joined(request.serverRequest().getAllRequestHeaders(name));
    }

    @Override
    protected SecurityContext securityContext() {
        return request.getSecurityContext();
    }

    @Override
    protected ClientAddresses clientAddresses() {
        return engine().settings().clientAddresses();
    }

    /** The Vert.x connection's peer address as text, or null (a request that is not Vert.x's, a Unix socket). */
    @Override
    protected String peer() {
        if (request instanceof VertxResteasyReactiveRequestContext vertx) {
            SocketAddress address = vertx.getContext().request().remoteAddress();
            return address == null ? null : address.hostAddress();
        }
        return null;
    }

    // ---------------------------------------------------------------- the headers

    /** Straight into the Vert.x response's headers, which Quarkus REST leaves as they are when it sends its own. */
    @Override
    public void header(String name, String value) {
        request.serverResponse().addResponseHeader(encoded(name), value);
    }

    private static CharSequence encoded(String name) {
        int known = RateLimitHeaders.indexOf(name);
        return known < 0 ? name : ENCODED[known];
    }
}
