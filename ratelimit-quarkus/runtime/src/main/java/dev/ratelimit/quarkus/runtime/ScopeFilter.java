package dev.ratelimit.quarkus.runtime;

import dev.ratelimit.jaxrs.RateLimitFeature;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import org.jboss.resteasy.reactive.server.spi.ResteasyReactiveContainerRequestContext;

/**
 * The request filter of one scope ({@link RateLimitFilters#decide}), registered by the build with the scope's priority
 * ({@link RateLimitFeature#TRANSPORT_PRIORITY}, {@link RateLimitFeature#PRINCIPAL_PRIORITY}), and, where it can, as a
 * non-blocking filter: Quarkus REST then runs it on the event loop before a blocking method is handed to a worker, so
 * a remote store's call goes out from the event loop and its answer resumes the request there, which goes on to the
 * worker once (no hop to the event loop and back for the call). Quarkus REST runs every non-blocking filter before the
 * others, so the build does so only where that changes no order (see the deployment's {@code RateLimitProcessor}).
 */
public abstract class ScopeFilter implements ContainerRequestFilter {

    private final boolean transport;

    ScopeFilter(boolean transport) {
        this.transport = transport;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        RateLimitFilters.decide((ResteasyReactiveContainerRequestContext) request, transport);
    }

    /** The TRANSPORT scope: between authentication and authorization. */
    public static final class Transport extends ScopeFilter {
        public Transport() {
            super(true);
        }
    }

    /** The PRINCIPAL scope: after authorization. */
    public static final class Principal extends ScopeFilter {
        public Principal() {
            super(false);
        }
    }
}
