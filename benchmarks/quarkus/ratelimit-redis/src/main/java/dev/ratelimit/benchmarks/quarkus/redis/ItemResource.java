package dev.ratelimit.benchmarks.quarkus.redis;

import dev.ratelimit.RateLimit;
import io.smallrye.common.annotation.Blocking;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** {@code GET /item/{id}}: a small JSON document, on a worker thread (blocking), the same in every app of the comparison. */
@Path("/item")
public class ItemResource {

    @GET
    @Path("{id}")
    @Produces(MediaType.APPLICATION_JSON)
    @Blocking
    @RateLimit(name = "item", permitLimit = 100_000_000, windowSeconds = 60)
    public String item(@PathParam("id") long id) {
        return "{\"id\":" + id + ",\"title\":\"item " + id + "\",\"done\":false}";
    }
}
