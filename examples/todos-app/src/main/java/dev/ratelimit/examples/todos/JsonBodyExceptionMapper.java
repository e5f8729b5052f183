package dev.ratelimit.examples.todos;

import com.fasterxml.jackson.core.JsonProcessingException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * A body that does not bind ({@code {"title": } cut short, an array for an object): 400 with problem
 * details, on every runtime. The example binds JSON with Jackson everywhere (SPEC 11: the same classes on
 * every runtime), and not every runtime maps Jackson's exceptions itself: Jersey does, Quarkus REST does,
 * RESTEasy on Open Liberty and Jersey on Payara with a bundled Jackson provider do not, and answer 500 from
 * the container, past the response filters. Being a mapped response, the 400 still carries the
 * rate-limit headers of what the request spent.
 */
@Provider
public class JsonBodyExceptionMapper implements ExceptionMapper<JsonProcessingException> {

    @Override
    public Response toResponse(JsonProcessingException exception) {
        return Problem.of(Response.Status.BAD_REQUEST,
                "The body does not bind: " + exception.getOriginalMessage()).build();
    }
}
