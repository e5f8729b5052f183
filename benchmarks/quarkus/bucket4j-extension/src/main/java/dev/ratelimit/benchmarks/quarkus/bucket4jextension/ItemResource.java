package dev.ratelimit.benchmarks.quarkus.bucket4jextension;

import io.quarkiverse.bucket4j.runtime.RateLimited;
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
    @RateLimited(bucket = "item", identityResolver = ApiKeyResolver.class)
    public String item(@PathParam("id") long id) {
        return "{\"id\":" + id + ",\"title\":\"item " + id + "\",\"done\":false}";
    }
}
