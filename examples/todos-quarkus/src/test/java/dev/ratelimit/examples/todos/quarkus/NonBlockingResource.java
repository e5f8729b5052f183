package dev.ratelimit.examples.todos.quarkus;

import dev.ratelimit.RateLimit;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A non-blocking resource method (it returns a {@code CompletionStage}): Quarkus REST runs its filters,
 * the library's among them, on the event loop (test only: not part of the example).
 */
@Path("/quarkus-test/non-blocking")
public class NonBlockingResource {

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(permitLimit = 2, windowSeconds = 60, name = "non-blocking")
    public CompletionStage<String> get() {
        return CompletableFuture.completedFuture(Thread.currentThread().getName());
    }
}
