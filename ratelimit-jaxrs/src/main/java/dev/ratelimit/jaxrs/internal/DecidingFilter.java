package dev.ratelimit.jaxrs.internal;

import dev.ratelimit.RateLimitScope;
import dev.ratelimit.cdi.RateLimitRuntime;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitStoreException;
import dev.ratelimit.core.engine.BoundLimits;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Response;
import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;

/**
 * Decides the limits of one resource method in one scope: a thin adapter over the engine. Holds what was
 * bound at deployment; per request it makes the request's ledger (the first filter of the library to run:
 * the partition is chosen once) and asks the engine to decide, at once for the in-process store. A remote
 * store's answer is waited for without holding the thread where the runtime can suspend a request filter
 * (Quarkus REST, on its I/O thread), else on the worker thread, at most the store timeout. A refusal is
 * not answered here: {@link DeferredRefusalFilter} answers it after every other request filter had its say.
 * A store failure under {@code on-failure=fail} is a 500 with an empty body (the engine logs the outage).
 *
 * <p>One subclass per scope: a Jakarta REST runtime may keep only the first instance of a provider class
 * bound to a resource method (RESTEasy on Open Liberty, Jersey on Payara ignore the second), so the
 * PRINCIPAL filter must not share its class with the TRANSPORT one.
 */
public abstract sealed class DecidingFilter implements ContainerRequestFilter
        permits DecidingFilter.TransportScope, DecidingFilter.PrincipalScope {

    private final RateLimitRuntime runtime;
    private final RateLimitEngine engine;
    private final Method resourceMethod;
    private final BoundLimits limits;

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
        this.resourceMethod = resourceMethod;
        this.limits = limits;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        if (!runtime.configurationChecked()) {
            runtime.deploymentComplete(); // every resource method is bound once the first request arrives
        }
        RequestLedger ledger = Ledgers.of(request);
        if (ledger == null) {
            ledger = engine.ledger(new RequestCaller(request), resourceMethod);
            request.setProperty(Ledgers.PROPERTY, ledger);
            runtime.publish(ledger);
        }
        if (limits.isEmpty()) {
            return;
        }
        if (engine.decidesAtOnce()) {
            try {
                engine.decideNow(ledger, limits);
            } catch (RateLimitStoreException e) {
                request.abortWith(Response.serverError().build());
            }
            return;
        }
        CompletableFuture<RateLimitDecision> pending = engine.decide(ledger, limits).toCompletableFuture();
        if (!pending.isDone() && RequestSuspension.suspend(request)) {
            pending.whenComplete((decision, failure) -> {
                if (failure == null) {
                    RequestSuspension.resume(request);
                } else {
                    request.abortWith(Response.serverError().build());
                }
            });
            return;
        }
        try {
            engine.await(pending);
        } catch (RateLimitStoreException e) {
            request.abortWith(Response.serverError().build());
        }
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
}
