package dev.ratelimit.quarkus.runtime;

import dev.ratelimit.core.engine.BoundLimits;
import dev.ratelimit.core.lifecycle.RequestLifecycle;
import dev.ratelimit.core.lifecycle.Suspension;
import dev.ratelimit.jaxrs.RateLimitFeature;
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
 * method no limit covers has no state, and each filter returns at once.
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

    /** Between authentication and authorization. */
    @ServerRequestFilter(priority = RateLimitFeature.TRANSPORT_PRIORITY)
    public void transport(ResteasyReactiveContainerRequestContext context) {
        RequestState state = state(context);
        if (state != null) {
            decide(context, state, state.method.transport);
        }
    }

    /** After authorization. */
    @ServerRequestFilter(priority = RateLimitFeature.PRINCIPAL_PRIORITY)
    public void principal(ResteasyReactiveContainerRequestContext context) {
        RequestState state = state(context);
        if (state != null) {
            decide(context, state, state.method.principal);
        }
    }

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

    /** The ledger is made by the first scope with limits: the partition is chosen after authentication. */
    private static void decide(ResteasyReactiveContainerRequestContext context, RequestState state, BoundLimits limits) {
        if (limits != null && !limits.isEmpty()) {
            RequestLifecycle.decideScope(state.engine(), state.ledger(), limits, context, SUSPENSION);
        }
    }
}
