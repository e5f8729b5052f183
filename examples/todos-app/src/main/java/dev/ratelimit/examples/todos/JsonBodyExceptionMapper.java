package dev.ratelimit.examples.todos;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * A body that does not bind ({@code {"title": } cut short, an array for an object, a number for a title):
 * 400 with problem details ({@code application/problem+json}, as the OpenAPI document says), on every
 * runtime. The example binds JSON with Jackson everywhere (the same classes on every runtime), and
 * runtimes map Jackson's exceptions differently: Jersey with its Jackson feature maps {@code JsonParseException}
 * and {@code JsonMappingException} itself (to a {@code text/plain} 400), RESTEasy on Open Liberty and Jersey on
 * Payara with a bundled provider not at all (a 500 from the container). A mapper of the exact exception type
 * wins over those (Jakarta REST chooses the nearest type first, then the priority: these come first), hence
 * one per type here. Being a mapped response, the 400 still carries the rate-limit headers of what the request
 * spent.
 */
public final class JsonBodyExceptionMapper {

    private JsonBodyExceptionMapper() {
    }

    static Response badRequest(JsonProcessingException exception) {
        return Problem.of(Response.Status.BAD_REQUEST, "The body does not bind: " + exception.getOriginalMessage()).build();
    }

    /** Malformed JSON. */
    @Provider
    @Priority(Priorities.USER - 1000)
    public static class Parse implements ExceptionMapper<JsonParseException> {
        @Override
        public Response toResponse(JsonParseException exception) {
            return badRequest(exception);
        }
    }

    /** Well-formed JSON of the wrong shape. */
    @Provider
    @Priority(Priorities.USER - 1000)
    public static class Mapping implements ExceptionMapper<JsonMappingException> {
        @Override
        public Response toResponse(JsonMappingException exception) {
            return badRequest(exception);
        }
    }

    /** Any other Jackson failure while reading a body. */
    @Provider
    @Priority(Priorities.USER - 1000)
    public static class Other implements ExceptionMapper<JsonProcessingException> {
        @Override
        public Response toResponse(JsonProcessingException exception) {
            return badRequest(exception);
        }
    }
}
