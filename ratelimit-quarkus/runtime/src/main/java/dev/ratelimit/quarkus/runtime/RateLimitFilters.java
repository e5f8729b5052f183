package dev.ratelimit.quarkus.runtime;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitExceededException;
import dev.ratelimit.core.engine.BoundLimits;
import dev.ratelimit.core.engine.DecisionStages;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.core.headers.RateLimitHeaders;
import dev.ratelimit.jaxrs.RateLimitFeature;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerResponseContext;
import java.util.concurrent.CompletableFuture;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;
import org.jboss.resteasy.reactive.server.core.ResteasyReactiveRequestContext;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext;

/**
 * The request path on Quarkus REST: its own request and response filters, which Quarkus REST generates callers for
 * at build time (no reflection), registered by the deployment module for every resource method. A request whose
 * method no limit covers has no {@link RequestState}, and each filter returns at once.
 *
 * <ul>
 *   <li>{@link #transport}, between authentication and authorization, and {@link #principal}, after authorization,
 *       decide their scope's limits ({@code RateLimitEngine.decide}, the one request path). A decision that is not
 *       there at once (a remote store) suspends the request, which resumes when it arrives: no thread waits, the
 *       event loop least of all. A refusal is only recorded.</li>
 *   <li>{@link #refusal}, after every other request filter, answers a recorded refusal with
 *       {@link RateLimitExceededException}, which the library's mapper (or the application's) turns into the 429;
 *       a later filter that refused the request first (401, 403, 415...) wins, and the body is never read.</li>
 *   <li>{@link #headers} ends the request: gives back what a refused request spent, and writes the rate-limit
 *       headers into the Vert.x response, {@code RateLimit-Policy} taken from the method's formats.</li>
 * </ul>
 */
public class RateLimitFilters {

    private static final int TOO_MANY_REQUESTS = 429;

    @ServerRequestFilter(priority = RateLimitFeature.TRANSPORT_PRIORITY)
    public void transport(ResteasyReactiveContainerRequestContext context) {
        RequestState state = RequestState.of((ResteasyReactiveRequestContext) context.getServerRequestContext());
        if (state != null) {
            decide(context, state, state.method.transport);
        }
    }

    @ServerRequestFilter(priority = RateLimitFeature.PRINCIPAL_PRIORITY)
    public void principal(ResteasyReactiveContainerRequestContext context) {
        RequestState state = RequestState.of((ResteasyReactiveRequestContext) context.getServerRequestContext());
        if (state != null) {
            decide(context, state, state.method.principal);
        }
    }

    @ServerRequestFilter(priority = Integer.MAX_VALUE)
    public void refusal(ResteasyReactiveContainerRequestContext context) {
        RequestState state = RequestState.of((ResteasyReactiveRequestContext) context.getServerRequestContext());
        RequestLedger ledger = state == null ? null : state.ledgerIfAny();
        if (ledger != null) {
            RateLimitDecision refusal = ledger.refusal();
            if (refusal != null) {
                throw new RateLimitExceededException(refusal);
            }
        }
    }

    @ServerResponseFilter(priority = Priorities.HEADER_DECORATOR)
    public void headers(ResteasyReactiveContainerRequestContext context, ContainerResponseContext response) {
        RequestState state = RequestState.of((ResteasyReactiveRequestContext) context.getServerRequestContext());
        RequestLedger ledger = state == null ? null : state.ledgerIfAny();
        if (ledger == null) {
            return;
        }
        if (ledger.refusal() != null) {
            int status = response.getStatus();
            if (status >= 400) {
                state.method.engine.giveBack(ledger); // a refused request spends nothing, whoever refused it
            }
            if (status != TOO_MANY_REQUESTS) {
                return; // another filter's answer, not the limiter's
            }
        }
        RateLimitHeaders.write(ledger, state.method.formats, state);
    }

    private static void decide(ResteasyReactiveContainerRequestContext context, RequestState state, BoundLimits limits) {
        if (limits == null || limits.isEmpty()) {
            return;
        }
        CompletableFuture<RateLimitDecision> answer = state.method.engine.decide(state.ledger(), limits, 1);
        if (!answer.isDone()) {
            context.suspend();
            answer.whenComplete((decision, failure) -> {
                if (failure == null) {
                    context.resume();
                } else {
                    context.resume(DecisionStages.cause(failure)); // to the store-failure mapper: 500
                }
            });
            return;
        }
        DecisionStages.join(answer); // a store failure: thrown to its mapper
    }
}
