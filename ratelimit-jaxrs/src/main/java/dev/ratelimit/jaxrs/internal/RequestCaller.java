package dev.ratelimit.jaxrs.internal;

import dev.ratelimit.core.RateLimitCaller;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.SecurityContext;
import java.security.Principal;

/** The caller as Jakarta REST sees it: the request's {@code SecurityContext} and headers ({@link RequestHeaders}). */
final class RequestCaller implements RateLimitCaller {

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
        return RequestHeaders.get(request, name);
    }

    @Override
    public boolean isUserInRole(String role) {
        SecurityContext security = request.getSecurityContext();
        return security != null && security.getUserPrincipal() != null && security.isUserInRole(role);
    }
}
