package dev.ratelimit.examples.todos;

import jakarta.ws.rs.core.Response;
import java.util.LinkedHashMap;
import java.util.Map;

/** RFC 9457 problem details for the example's own error answers (400, 401, 404, 409). */
final class Problems {

    static final String MEDIA_TYPE = "application/problem+json";

    private Problems() {
    }

    static Response.ResponseBuilder of(Response.Status status, String detail) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", "about:blank");
        body.put("title", status.getReasonPhrase());
        body.put("status", status.getStatusCode());
        body.put("detail", detail);
        return Response.status(status).type(MEDIA_TYPE).entity(body);
    }
}
