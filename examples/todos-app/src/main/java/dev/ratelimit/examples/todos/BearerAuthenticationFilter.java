package dev.ratelimit.examples.todos;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.ext.Provider;
import java.security.Principal;
import java.util.Set;

/**
 * Example authentication only, never for production: {@code Authorization: Bearer <name>} makes
 * {@code <name>} the authenticated caller, without any check, and {@code Bearer <name>:<role>,<role>} the
 * caller {@code <name>} in those roles ({@code SecurityContext.isUserInRole}; {@code Bearer bob:gold} puts
 * bob in the plan {@code gold}). A request without such a header stays anonymous (it is not refused here;
 * {@link AuthenticatedCallerFilter} refuses where a caller is needed).
 */
@Provider
@Priority(Priorities.AUTHENTICATION)
public class BearerAuthenticationFilter implements ContainerRequestFilter {

    private static final String SCHEME = "Bearer";

    @Override
    public void filter(ContainerRequestContext request) {
        Caller caller = caller(request.getHeaderString(HttpHeaders.AUTHORIZATION));
        if (caller != null) {
            boolean secure = request.getSecurityContext() != null && request.getSecurityContext().isSecure();
            request.setSecurityContext(new BearerSecurityContext(caller, secure));
        }
    }

    /** The caller of {@code Bearer <name>[:<role>,<role>...]} (scheme matched without regard to case), or null. */
    static Caller caller(String authorization) {
        if (authorization == null || authorization.length() <= SCHEME.length()
                || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())
                || authorization.charAt(SCHEME.length()) != ' ') {
            return null;
        }
        String token = authorization.substring(SCHEME.length() + 1).strip();
        int colon = token.indexOf(':');
        String name = (colon < 0 ? token : token.substring(0, colon)).strip();
        if (name.isEmpty()) {
            return null;
        }
        Set<String> roles = Set.of();
        if (colon >= 0) {
            roles = Set.copyOf(java.util.Arrays.stream(token.substring(colon + 1).split(","))
                    .map(String::strip).filter(r -> !r.isEmpty()).toList());
        }
        return new Caller(name, roles);
    }

    record Caller(String name, Set<String> roles) implements Principal {
        @Override
        public String getName() {
            return name;
        }
    }

    private record BearerSecurityContext(Caller caller, boolean secure) implements SecurityContext {
        @Override
        public Principal getUserPrincipal() {
            return caller;
        }

        @Override
        public boolean isUserInRole(String role) {
            return caller.roles().contains(role);
        }

        @Override
        public boolean isSecure() {
            return secure;
        }

        @Override
        public String getAuthenticationScheme() {
            return SCHEME;
        }
    }
}
