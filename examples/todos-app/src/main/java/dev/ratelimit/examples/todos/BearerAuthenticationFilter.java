package dev.ratelimit.examples.todos;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.ext.Provider;
import java.security.Principal;

/**
 * Example authentication only, never for production: {@code Authorization: Bearer <name>} makes
 * {@code <name>} the authenticated caller, without any check. A request without such a header stays
 * anonymous (it is not refused here; {@link AuthenticatedCallerFilter} refuses where a caller is needed).
 */
@Provider
@Priority(Priorities.AUTHENTICATION)
public class BearerAuthenticationFilter implements ContainerRequestFilter {

    private static final String SCHEME = "Bearer";

    @Override
    public void filter(ContainerRequestContext request) {
        String name = callerName(request.getHeaderString(HttpHeaders.AUTHORIZATION));
        if (name != null) {
            boolean secure = request.getSecurityContext() != null && request.getSecurityContext().isSecure();
            request.setSecurityContext(new BearerSecurityContext(new Caller(name), secure));
        }
    }

    /** The name after {@code Bearer } (scheme matched without regard to case), or null. */
    static String callerName(String authorization) {
        if (authorization == null || authorization.length() <= SCHEME.length()
                || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())
                || authorization.charAt(SCHEME.length()) != ' ') {
            return null;
        }
        String name = authorization.substring(SCHEME.length() + 1).strip();
        return name.isEmpty() ? null : name;
    }

    record Caller(String name) implements Principal {
        @Override
        public String getName() {
            return name;
        }
    }

    private record BearerSecurityContext(Principal caller, boolean secure) implements SecurityContext {
        @Override
        public Principal getUserPrincipal() {
            return caller;
        }

        @Override
        public boolean isUserInRole(String role) {
            return false;
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
