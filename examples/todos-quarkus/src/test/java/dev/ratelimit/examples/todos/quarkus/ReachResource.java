package dev.ratelimit.examples.todos.quarkus;

import dev.ratelimit.RateLimit;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Resource methods of each kind Quarkus REST serves, each limited and calling a limited bean
 * ({@link ReachLookups}): a blocking one (moved to a worker thread before the filters), one that returns a
 * {@code CompletionStage} and one that returns a {@code Uni} (on the event loop). Test only: not part of the example.
 */
@Path("/quarkus-test/reach")
public class ReachResource {

    @Inject
    ReachLookups lookups;

    @GET
    @Path("blocking")
    @Blocking
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(permitLimit = 9, windowSeconds = 60, name = "reach-outer")
    public String blocking() {
        return lookups.lookup();
    }

    @GET
    @Path("stage")
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(permitLimit = 9, windowSeconds = 60, name = "reach-outer")
    public CompletionStage<String> stage() {
        return CompletableFuture.completedFuture(lookups.lookup());
    }

    @GET
    @Path("uni")
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(permitLimit = 9, windowSeconds = 60, name = "reach-outer")
    public Uni<String> uni() {
        return Uni.createFrom().item(lookups::lookup);
    }
}
