package dev.ratelimit.examples.todos;

import jakarta.ws.rs.core.Response;

/**
 * RFC 9457 problem details, the body of the example's own error answers (400, 401, 404, 409), as
 * {@code application/problem+json}.
 *
 * @param type   always {@code about:blank}: the status says it all
 * @param title  the status's reason phrase
 * @param status the HTTP status
 * @param detail what went wrong, for a person
 */
public record Problem(String type, String title, int status, String detail) {

    static final String MEDIA_TYPE = "application/problem+json";

    static Response.ResponseBuilder of(Response.Status status, String detail) {
        return Response.status(status).type(MEDIA_TYPE)
                .entity(new Problem("about:blank", status.getReasonPhrase(), status.getStatusCode(), detail));
    }
}
