package dev.ratelimit.cdi.internal;

import dev.ratelimit.cdi.RequestLedgers;
import dev.ratelimit.core.engine.RequestLedger;
import jakarta.enterprise.context.ContextNotActiveException;
import jakarta.enterprise.context.RequestScoped;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * {@link RequestLedgers}: where the interceptor and the programmatic API find the current request's ledger, which
 * the Jakarta REST filters make. A plain object, not a bean: the filters call it on every request without a client
 * proxy.
 *
 * <p>Three places, the cheapest the request allows:
 * <ul>
 *   <li>on the thread: a request whose resource method runs on the thread of its filters, on a runtime whose
 *       request context stays on that thread (Weld: the embedded server, Open Liberty, Payara), from the first
 *       deciding filter to the header filter;</li>
 *   <li>in the request itself, on Quarkus REST: the filters keep the ledger as a request property
 *       ({@link #PROPERTY}), and Quarkus REST's current request follows the request across threads (a blocking
 *       method moved to a worker, a filter that suspends and resumes elsewhere), so it is read back from there;</li>
 *   <li>else in the request-scoped {@link Holder}, which the request context carries wherever the request
 *       goes (a method that returns a stage or suspends, a store that answers later, MicroProfile Context
 *       Propagation).</li>
 * </ul>
 *
 * <p>Left on purpose: a runtime may skip the response filters for an exception no mapper handles, and then the
 * ledger stays on the thread until the next request's filters replace it. Code that runs on that thread in
 * between, outside Jakarta REST and inside a request context, would find the ended request's ledger.
 */
final class DefaultRequestLedgers implements RequestLedgers {

    /** The ledger of the request being filtered and served on this thread. */
    private static final ThreadLocal<RequestLedger> ON_THREAD = new ThreadLocal<>();

    private static final String QUARKUS_REST_REQUESTS = "org.jboss.resteasy.reactive.server.core.CurrentRequestManager";
    private static final int UNKNOWN = 0;
    private static final int IN_REQUEST = 1;
    private static final int IN_CONTEXT = 2;

    private final Holder holder;
    private final boolean contextFollowsTheRequest;
    /** Quarkus REST is present: its current request may hold the ledger ({@link QuarkusRest}). */
    private final boolean quarkusRest;
    /**
     * Where a published ledger goes when it cannot stay on the thread: {@link #UNKNOWN} until the first request is
     * published, then {@link #IN_REQUEST} when Quarkus REST's current request shows the filters' request property,
     * else {@link #IN_CONTEXT} (one Jakarta REST runtime serves the application, so it never changes again).
     */
    private volatile int offThread = UNKNOWN;

    DefaultRequestLedgers(Holder holder, boolean contextFollowsTheRequest) {
        this.holder = holder;
        this.contextFollowsTheRequest = contextFollowsTheRequest;
        this.quarkusRest = quarkusRestRequests();
    }

    /** True when Quarkus REST's current request can be read (its classes are there, with the expected methods). */
    private static boolean quarkusRestRequests() {
        if (!OptionalClasses.present(QUARKUS_REST_REQUESTS)) {
            return false;
        }
        try {
            return QuarkusRest.CURRENT != null;
        } catch (LinkageError e) { // another Quarkus REST than the one this was written for: the request context then
            return false;
        }
    }

    /** True on a runtime whose request context may follow a request to other threads. */
    static boolean contextFollowsTheRequest() {
        return OptionalClasses.present("io.quarkus.arc.Arc") || OptionalClasses.present("io.vertx.core.Vertx")
                || OptionalClasses.present("org.eclipse.microprofile.context.ManagedExecutor");
    }

    @Override
    public RequestLedger current() {
        if (!contextFollowsTheRequest) { // else nothing is ever put on the thread
            RequestLedger onThread = ON_THREAD.get();
            if (onThread != null) {
                return onThread;
            }
        }
        if (offThread == IN_REQUEST) {
            Object request = QuarkusRest.currentRequest();
            if (request != null) {
                return QuarkusRest.ledger(request);
            }
        }
        try {
            return holder.ledger();
        } catch (ContextNotActiveException e) {
            return null;
        }
    }

    /**
     * Makes {@code ledger} the current request's, whose filters have set it as the request property
     * {@link #PROPERTY}: on this thread when the request is served on it ({@code sameThread}) and the request
     * context stays here; else left in the request itself where the runtime's current request shows that property
     * (Quarkus REST); else in the request context (nothing when no request context is active: the interceptor and
     * the programmatic API then decide on their own).
     */
    @Override
    public void publish(RequestLedger ledger, boolean sameThread) {
        if (sameThread && !contextFollowsTheRequest) {
            ON_THREAD.set(ledger);
            return;
        }
        if (!contextFollowsTheRequest) {
            ON_THREAD.set(null); // a ledger left on this thread by a request that ended without its response filters
        }
        int where = offThread;
        if (where == UNKNOWN) {
            Object request = quarkusRest ? QuarkusRest.currentRequest() : null;
            where = request != null && QuarkusRest.ledger(request) == ledger ? IN_REQUEST : IN_CONTEXT;
            offThread = where;
        }
        if (where == IN_REQUEST) {
            return; // current() reads it back from the request
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
    @Override
    public void withdraw(RequestLedger ledger) {
        if (!contextFollowsTheRequest && ON_THREAD.get() == ledger) {
            ON_THREAD.set(null); // not remove(): the entry stays, so the next request's set is a write in place
        }
    }

    /** Where ledgers go (for diagnostics and tests). */
    @Override
    public String toString() {
        String offThreadPlace = switch (offThread) {
            case IN_REQUEST -> "in the request (Quarkus REST)";
            case IN_CONTEXT -> "in the request context";
            default -> quarkusRest ? "not known before the first request" : "in the request context";
        };
        return "RequestLedgers[" + (contextFollowsTheRequest ? "" : "on the thread when served there, else ")
                + offThreadPlace + "]";
    }

    /**
     * Quarkus REST's current request ({@code CurrentRequestManager.get()}) and its properties, through method
     * handles looked up once (Quarkus REST is not on the library's compile class path). Loaded only when present.
     */
    private static final class QuarkusRest {

        static final MethodHandle CURRENT;
        static final MethodHandle PROPERTY_OF;

        static {
            try {
                ClassLoader loader = DefaultRequestLedgers.class.getClassLoader();
                Class<?> requests = Class.forName(QUARKUS_REST_REQUESTS, true, loader);
                Class<?> request = Class.forName("org.jboss.resteasy.reactive.server.core.ResteasyReactiveRequestContext",
                        false, loader);
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                CURRENT = lookup.findStatic(requests, "get", MethodType.methodType(request))
                        .asType(MethodType.methodType(Object.class));
                PROPERTY_OF = lookup.findVirtual(request, "getProperty", MethodType.methodType(Object.class, String.class))
                        .asType(MethodType.methodType(Object.class, Object.class, String.class));
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private QuarkusRest() {
        }

        /** The current Quarkus REST request, or null outside one (or outside a request context). */
        static Object currentRequest() {
            try {
                return (Object) CURRENT.invokeExact();
            } catch (ContextNotActiveException e) {
                return null;
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }

        /** The ledger the filters set on {@code request}, or null. */
        static RequestLedger ledger(Object request) {
            Object ledger;
            try {
                ledger = (Object) PROPERTY_OF.invokeExact(request, PROPERTY);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
            return ledger instanceof RequestLedger l ? l : null;
        }
    }

    /**
     * Carries the request's ledger from the Jakarta REST filters to the interceptor and the programmatic API, which see
     * the request only through CDI, when the request may leave the thread of its filters. A request-scoped bean,
     * package-private with package-private methods: no application bean can inject it and overwrite a request's ledger.
     */
    @RequestScoped
    static class Holder {

        private RequestLedger ledger;

        RequestLedger ledger() {
            return ledger;
        }

        void ledger(RequestLedger ledger) {
            this.ledger = ledger;
        }
    }
}
