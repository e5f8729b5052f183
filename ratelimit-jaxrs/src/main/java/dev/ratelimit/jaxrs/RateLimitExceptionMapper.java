package dev.ratelimit.jaxrs;

import dev.ratelimit.core.RateLimitExceededException;
import dev.ratelimit.core.headers.RateLimitProblem;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * The default answer to a refused request: {@code 429 Too Many Requests} with the RFC 9457
 * {@code application/problem+json} body of {@link RateLimitProblem}. The rate-limit headers are added by the
 * response filter, whichever mapper built the response.
 *
 * <p>An application's own {@code ExceptionMapper<RateLimitExceededException>} takes over: this one
 * has a low priority ({@code Priorities.USER + 1000}).
 */
@Provider
@Priority(Priorities.USER + 1000)
public class RateLimitExceptionMapper implements ExceptionMapper<RateLimitExceededException> {

    @Override
    public Response toResponse(RateLimitExceededException exception) {
        return Response.status(RateLimitProblem.STATUS).type(RateLimitProblem.MEDIA_TYPE)
                .entity(RateLimitProblem.body(exception.getViolatedPolicies())).build();
    }
}
