package dev.ratelimit.quarkus.deployment;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.ext.Provider;
import java.security.Principal;

/**
 * The test application's security, as plain Jakarta REST filters (test only): {@code X-User: <name>} authenticates;
 * {@code X-Deny} makes authorization refuse with 401, after the TRANSPORT limits and before the PRINCIPAL ones;
 * {@code DELETE} needs a caller.
 */
final class TestSecurityFilters {

    private TestSecurityFilters() {
    }

    @Provider
    @Priority(Priorities.AUTHENTICATION)
    public static class Authentication implements ContainerRequestFilter {
        @Override
        public void filter(ContainerRequestContext request) {
            String user = request.getHeaderString("X-User");
            if (user != null) {
                Principal principal = () -> user;
                request.setSecurityContext(new SecurityContext() {
                    public Principal getUserPrincipal() {
                        return principal;
                    }

                    public boolean isUserInRole(String role) {
                        return false;
                    }

                    public boolean isSecure() {
                        return false;
                    }

                    public String getAuthenticationScheme() {
                        return "test";
                    }
                });
            }
        }
    }

    @Provider
    @Priority(Priorities.AUTHORIZATION)
    public static class Authorization implements ContainerRequestFilter {
        @Override
        public void filter(ContainerRequestContext request) {
            boolean anonymous = request.getSecurityContext().getUserPrincipal() == null;
            if (request.getHeaderString("X-Deny") != null || (anonymous && request.getMethod().equals("DELETE"))) {
                request.abortWith(Response.status(401).entity("who are you?").build());
            }
        }
    }
}
