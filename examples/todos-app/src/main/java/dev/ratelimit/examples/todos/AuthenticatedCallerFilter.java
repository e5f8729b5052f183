package dev.ratelimit.examples.todos;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Provider;

/**
 * Authorization for the methods marked {@link Authenticated}: 401 with {@code WWW-Authenticate: Bearer}
 * when there is no authenticated caller. It runs at {@code Priorities.AUTHORIZATION}, so a TRANSPORT
 * limit has decided before it and a PRINCIPAL limit (such as {@code delete}) decides after it.
 */
@Provider
@Authenticated
@Priority(Priorities.AUTHORIZATION)
public class AuthenticatedCallerFilter implements ContainerRequestFilter {

    @Override
    public void filter(ContainerRequestContext request) {
        if (request.getSecurityContext() == null || request.getSecurityContext().getUserPrincipal() == null) {
            request.abortWith(Problem.of(Response.Status.UNAUTHORIZED, "Send Authorization: Bearer <name>.")
                    .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer")
                    .build());
        }
    }
}
