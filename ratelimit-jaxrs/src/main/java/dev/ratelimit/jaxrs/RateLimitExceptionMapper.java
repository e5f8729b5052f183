package dev.ratelimit.jaxrs;

import dev.ratelimit.core.RateLimitExceededException;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.List;

/**
 * The default answer to a refused request: {@code 429 Too Many Requests} with an RFC 9457
 * {@code application/problem+json} body of the problem type the IETF rate-limit headers draft
 * registers, and its {@code violated-policies} member. The rate-limit headers are added by the
 * response filter, whichever mapper built the response.
 *
 * <p>An application's own {@code ExceptionMapper<RateLimitExceededException>} takes over: this one
 * has a low priority ({@code Priorities.USER + 1000}).
 */
@Provider
@Priority(Priorities.USER + 1000)
public class RateLimitExceptionMapper implements ExceptionMapper<RateLimitExceededException> {

    /** The problem type of a refused request. */
    public static final String PROBLEM_TYPE = "https://iana.org/assignments/http-problem-types#quota-exceeded";

    /** The media type of the body. */
    public static final String PROBLEM_JSON = "application/problem+json";

    /** The HTTP status of a refused request. */
    public static final int TOO_MANY_REQUESTS = 429;

    @Override
    public Response toResponse(RateLimitExceededException exception) {
        return Response.status(Response.Status.TOO_MANY_REQUESTS).type(PROBLEM_JSON).entity(body(exception.getViolatedPolicies()))
                .build();
    }

    /**
     * The body. Policy names are validated to {@code [A-Za-z0-9._-]} when the limits deploy, so they
     * need no escaping; everything else is constant.
     */
    static String body(List<String> violated) {
        StringBuilder json = new StringBuilder(192)
                .append("{\"type\":\"").append(PROBLEM_TYPE)
                .append("\",\"title\":\"Too Many Requests\",\"status\":429,\"detail\":\"Rate limit exceeded.\",")
                .append("\"violated-policies\":[");
        for (int i = 0; i < violated.size(); i++) {
            if (i > 0) {
                json.append(',');
            }
            json.append('"').append(violated.get(i)).append('"');
        }
        return json.append("]}").toString();
    }
}
