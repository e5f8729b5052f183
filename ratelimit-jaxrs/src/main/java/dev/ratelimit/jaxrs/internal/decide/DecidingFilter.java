package dev.ratelimit.jaxrs.internal.decide;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitPartitioner;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitScope;
import dev.ratelimit.internal.cdi.BeanLimitGuard;
import dev.ratelimit.internal.cdi.RateLimitRuntime;
import dev.ratelimit.internal.engine.Decisions;
import dev.ratelimit.internal.engine.FailureLog;
import dev.ratelimit.internal.engine.RequestLedger;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.lang.reflect.Method;
import java.security.Principal;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Decides the limits of one resource method in one scope. Holds everything resolved at deployment;
 * per request it chooses the partition (once, for the first scope), asks the store and records the
 * decision in the request's ledger. A refusal is not answered here: {@link DeferredRefusalFilter}
 * answers it after every other request filter had its say.
 *
 * <p>One subclass per scope: a Jakarta REST runtime may keep only the first instance of a provider
 * class bound to a resource method (RESTEasy on Open Liberty, Jersey on Payara ignore the second), so
 * the PRINCIPAL filter must not share its class with the TRANSPORT one.
 */
public abstract sealed class DecidingFilter implements ContainerRequestFilter
        permits DecidingFilter.TransportScope, DecidingFilter.PrincipalScope {

    /** The request property holding the {@link RequestLedger}. */
    public static final String LEDGER = RequestLedger.class.getName();

    private static final FailureLog STORE_FAILURES = new FailureLog(System.getLogger("dev.ratelimit"));

    private final RateLimitRuntime runtime;
    private final BeanLimitGuard beans;
    private final Method resourceMethod;
    private final String where;
    private final List<RateLimitPolicy> policies;
    private final int scopeBit;

    /** The deciding filter of {@code scope}, of the class of that scope. */
    static DecidingFilter of(RateLimitScope scope, RateLimitRuntime runtime, BeanLimitGuard beans,
                             Method resourceMethod, String where, List<RateLimitPolicy> policies) {
        return switch (scope) {
            case TRANSPORT -> new TransportScope(runtime, beans, resourceMethod, where, policies);
            case PRINCIPAL -> new PrincipalScope(runtime, beans, resourceMethod, where, policies);
        };
    }

    private DecidingFilter(RateLimitRuntime runtime, BeanLimitGuard beans, Method resourceMethod, String where,
                           RateLimitScope scope, List<RateLimitPolicy> policies) {
        this.runtime = runtime;
        this.beans = beans;
        this.resourceMethod = resourceMethod;
        this.where = where;
        this.policies = List.copyOf(policies);
        this.scopeBit = 1 << scope.ordinal();
    }

    /** The request's ledger, or null when no limit reached the request. */
    public static RequestLedger ledger(ContainerRequestContext request) {
        return (RequestLedger) request.getProperty(LEDGER);
    }

    @Override
    public void filter(ContainerRequestContext request) {
        RequestLedger ledger = ledger(request);
        if (ledger == null) {
            if (policies.isEmpty() && !beans.anyLimited()) {
                return;
            }
            ledger = new RequestLedger(runtime.partitioner().partition(new RequestCaller(request)), resourceMethod);
            request.setProperty(LEDGER, ledger);
            runtime.publish(ledger);
        }
        if (policies.isEmpty() || ledger.refusal() != null || !ledger.claim(scopeBit)) {
            return;
        }
        CompletableFuture<RateLimitDecision> pending =
                runtime.store().acquire(ledger.partition(), policies).toCompletableFuture();
        if (!pending.isDone() && RequestSuspension.suspend(request)) {
            // A remote store, on a runtime that may run this filter on an I/O thread (Quarkus REST):
            // the request waits for the answer without holding the thread.
            RequestLedger suspended = ledger;
            pending.whenComplete((decision, failure) -> {
                if (failure == null) {
                    suspended.record(decision);
                    RequestSuspension.resume(request);
                } else {
                    storeFailed(request, failure);
                }
            });
            return;
        }
        RateLimitDecision decision;
        try {
            decision = Decisions.await(pending);
        } catch (Decisions.StoreFailedException e) {
            storeFailed(request, e.getCause());
            return;
        }
        ledger.record(decision);
    }

    private void storeFailed(ContainerRequestContext request, Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        STORE_FAILURES.failed("ratelimit: the store failed to decide " + policies + " for " + where
                + "; the request was answered 500", cause);
        request.abortWith(Response.serverError().build());
    }

    /** Decides the TRANSPORT limits, between authentication and authorization. */
    static final class TransportScope extends DecidingFilter {
        TransportScope(RateLimitRuntime runtime, BeanLimitGuard beans, Method resourceMethod, String where,
                       List<RateLimitPolicy> policies) {
            super(runtime, beans, resourceMethod, where, RateLimitScope.TRANSPORT, policies);
        }
    }

    /** Decides the PRINCIPAL limits, after authorization. */
    static final class PrincipalScope extends DecidingFilter {
        PrincipalScope(RateLimitRuntime runtime, BeanLimitGuard beans, Method resourceMethod, String where,
                       List<RateLimitPolicy> policies) {
            super(runtime, beans, resourceMethod, where, RateLimitScope.PRINCIPAL, policies);
        }
    }

    /** The caller as Jakarta REST sees it. */
    private static final class RequestCaller implements RateLimitPartitioner.Caller {
        private final ContainerRequestContext request;

        RequestCaller(ContainerRequestContext request) {
            this.request = request;
        }

        @Override
        public Principal principal() {
            SecurityContext security = request.getSecurityContext();
            return security == null ? null : security.getUserPrincipal();
        }

        @Override
        public String header(String name) {
            return request.getHeaderString(name);
        }
    }
}
