package dev.ratelimit.jaxrs.internal;

import dev.ratelimit.cdi.RateLimitRuntime;
import dev.ratelimit.cdi.RequestLedgers;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.RateLimitStoreException;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.core.lifecycle.RequestLifecycle;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.sse.SseEventSink;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

/**
 * Decides the limits of one resource method in one scope ({@link RequestLifecycle#decideScope}). Holds what was
 * bound at deployment; per request it makes the request's ledger (the first filter of the library to run:
 * the partition is chosen once) and publishes it for the interceptor and the programmatic API
 * ({@link RequestLedgers}). An answer that is not there at once (a remote store) is waited for without holding the
 * thread where the runtime can suspend a request filter (Quarkus REST, on its I/O thread: {@link RequestSuspension}),
 * else on the worker thread, at most the store timeout. A refusal is not answered here: {@link DeferredRefusalFilter}
 * answers it after every other request filter had its say. A store failure under {@code on-failure=fail} is thrown
 * as {@link RateLimitStoreException}, which {@link dev.ratelimit.jaxrs.StoreFailureMapper} answers (500, empty body)
 * as it does for bean limits.
 *
 * <p>One subclass per scope: a Jakarta REST runtime may keep only the first instance of a provider class
 * bound to a resource method (RESTEasy on Open Liberty, Jersey on Payara ignore the second), so the
 * PRINCIPAL filter must not share its class with the TRANSPORT one.
 */
public abstract sealed class DecidingFilter implements ContainerRequestFilter
        permits DecidingFilter.TransportScope, DecidingFilter.PrincipalScope {

    /** Return types of methods whose work goes on after they return, besides stages and futures. */
    private static final Set<String> ASYNC_TYPES = Set.of("io.smallrye.mutiny.Uni", "io.smallrye.mutiny.Multi",
            "org.reactivestreams.Publisher", "java.util.concurrent.Flow$Publisher");

    private final RateLimitRuntime runtime;
    private final RateLimitEngine engine;
    private final RequestLedgers ledgers;
    private final Method resourceMethod;
    private final BoundLimits limits;
    private final boolean sameThread;
    private boolean deploymentCompleted;

    /** The deciding filter of {@code scope}, of the class of that scope. */
    public static DecidingFilter of(RateLimitScope scope, RateLimitRuntime runtime, Method resourceMethod,
                                    BoundLimits limits) {
        return switch (scope) {
            case TRANSPORT -> new TransportScope(runtime, resourceMethod, limits);
            case PRINCIPAL -> new PrincipalScope(runtime, resourceMethod, limits);
        };
    }

    private DecidingFilter(RateLimitRuntime runtime, Method resourceMethod, BoundLimits limits) {
        this.runtime = runtime;
        this.engine = runtime.engine();
        this.ledgers = runtime.ledgers();
        this.resourceMethod = resourceMethod;
        this.limits = limits;
        this.sameThread = servedOnTheFilterThread(resourceMethod);
    }

    /**
     * False for a method that may go on after it returns, on another thread (it returns a stage or a
     * stream, suspends an {@code AsyncResponse}, or takes an SSE sink): its request's ledger must travel
     * with the request context.
     */
    static boolean servedOnTheFilterThread(Method method) {
        Class<?> returned = method.getReturnType();
        if (CompletionStage.class.isAssignableFrom(returned) || Future.class.isAssignableFrom(returned)
                || ASYNC_TYPES.contains(returned.getName())) {
            return false;
        }
        for (Parameter p : method.getParameters()) {
            if (p.isAnnotationPresent(Suspended.class) || SseEventSink.class.isAssignableFrom(p.getType())) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        if (!deploymentCompleted) {
            // every resource method is bound once the first request arrives; idempotent, so a race is harmless
            runtime.deploymentComplete();
            deploymentCompleted = true;
        }
        RequestLedger ledger = ledgerOf(request);
        if (ledger == null) {
            ledger = engine.ledger(new RequestCaller(request, engine.settings().clientAddresses()), resourceMethod);
            request.setProperty(RequestLedgers.PROPERTY, ledger);
            ledgers.publish(ledger, sameThread);
        }
        RequestLifecycle.decideScope(engine, ledger, limits, request, RequestSuspension.OF_REQUEST);
    }

    /** Decides the TRANSPORT limits, between authentication and authorization. */
    static final class TransportScope extends DecidingFilter {
        TransportScope(RateLimitRuntime runtime, Method resourceMethod, BoundLimits limits) {
            super(runtime, resourceMethod, limits);
        }
    }

    /** Decides the PRINCIPAL limits, after authorization. */
    static final class PrincipalScope extends DecidingFilter {
        PrincipalScope(RateLimitRuntime runtime, Method resourceMethod, BoundLimits limits) {
            super(runtime, resourceMethod, limits);
        }
    }

    /**
     * The request's ledger, kept as the request property {@link RequestLedgers#PROPERTY} by the first deciding filter;
     * null when no filter of the library reached the request.
     */
    static RequestLedger ledgerOf(ContainerRequestContext request) {
        return (RequestLedger) request.getProperty(RequestLedgers.PROPERTY);
    }
}
