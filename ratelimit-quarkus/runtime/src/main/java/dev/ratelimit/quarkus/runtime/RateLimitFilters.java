package dev.ratelimit.quarkus.runtime;

import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.lifecycle.RequestLifecycle;
import dev.ratelimit.core.lifecycle.Suspension;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerResponseContext;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;
import org.jboss.resteasy.reactive.server.core.ResteasyReactiveRequestContext;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext;

/**
 * The request's lifecycle ({@link RequestLifecycle}) on Quarkus REST: its own request and response filters, which
 * Quarkus REST generates callers for at build time (no reflection), registered by the deployment module for every
 * resource method. What is Quarkus' own: the request's {@link RequestState} (its ledger, and the Vert.x response's
 * headers as the sink of the rate-limit headers), and a decision that is not there at once (a remote store)
 * suspends the request, which resumes when it arrives: no thread waits, the event loop least of all. A request whose
 * method no limit covers has no state, and each filter returns at once. The two scopes decide in filters of their own
 * ({@link ScopeFilter}), which the build registers on the event loop before a blocking method's dispatch where it can.
 */
public class RateLimitFilters {

    /** Quarkus REST suspends any request filter. */
    private static final Suspension<ResteasyReactiveContainerRequestContext> SUSPENSION = new Suspension<>() {
        @Override
        public boolean suspend(ResteasyReactiveContainerRequestContext request) {
            request.suspend();
            return true;
        }

        @Override
        public void resume(ResteasyReactiveContainerRequestContext request, Throwable failure) {
            if (failure == null) {
                request.resume();
            } else {
                request.resume(failure); // to the store-failure mapper: 500
            }
        }
    };

    /** After every other request filter. */
    @ServerRequestFilter(priority = Integer.MAX_VALUE)
    public void refusal(ResteasyReactiveContainerRequestContext context) {
        RequestState state = state(context);
        if (state != null) {
            RequestLifecycle.answerRefusal(state.ledgerIfAny());
        }
    }

    @ServerResponseFilter(priority = Priorities.HEADER_DECORATOR)
    public void headers(ResteasyReactiveContainerRequestContext context, ContainerResponseContext response) {
        RequestState state = state(context);
        if (state != null) {
            RequestLifecycle.respond(state.engine(), state.ledgerIfAny(), response.getStatus(), state.method.formats, state);
        }
    }

    private static RequestState state(ResteasyReactiveContainerRequestContext context) {
        return RequestState.of((ResteasyReactiveRequestContext) context.getServerRequestContext());
    }

    /**
     * Decides the TRANSPORT scope ({@code transport}) or the PRINCIPAL one. The ledger is made by the first scope with
     * limits: the partition is chosen after authentication.
     */
    static void decide(ResteasyReactiveContainerRequestContext context, boolean transport) {
        RequestState state = state(context);
        if (state != null) {
            BoundLimits limits = transport ? state.method.transport : state.method.principal;
            if (limits != null && !limits.isEmpty()) {
                RequestLifecycle.decideScope(state.engine(), state.ledger(), limits, context, SUSPENSION);
            }
        }
    }
}
