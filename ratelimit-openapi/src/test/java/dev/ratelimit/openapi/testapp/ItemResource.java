package dev.ratelimit.openapi.testapp;

import dev.ratelimit.RateLimit;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitScope;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

/** Method limits, module-covered methods, a regex path parameter, a locator, a 429 of its own, algorithm and cost. */
@Path("items/")
public class ItemResource {

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimit(permitLimit = 3, windowSeconds = 60)
    public List<Item> all() {
        return List.of();
    }

    @GET
    @Path("{id: [0-9]{1,9}}")
    @Produces(MediaType.APPLICATION_JSON)
    @APIResponse(responseCode = "200", description = "The item")
    @APIResponse(responseCode = "404", description = "No such item")
    public Item one(@PathParam("id") long id) {
        return new Item(id, "one");
    }

    @POST
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimit(permitLimit = 5, windowSeconds = 1, name = "burst")
    @RateLimit(permitLimit = 500, windowSeconds = 3600, name = "hourly", scope = RateLimitScope.PRINCIPAL)
    public Item create(Item item) {
        return item;
    }

    @DELETE
    @Path("{id}")
    public void delete(@PathParam("id") long id) {
    }

    @GET
    @Path("export")
    @Produces("text/csv")
    @RateLimit(permitLimit = 1, windowSeconds = 10, name = "export")
    @APIResponse(responseCode = "200", description = "The items as CSV")
    @APIResponse(responseCode = "429", description = "One export per ten seconds",
            content = @Content(mediaType = "text/plain"))
    public String export() {
        return "";
    }

    @GET
    @Path("report")
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(permitLimit = 10, windowSeconds = 60, name = "reports", cost = 4, algorithm = RateLimitAlgorithm.STRICT_WINDOW)
    public String report() {
        return "";
    }

    /** A sub-resource locator: the reviews of one item. */
    @Path("{itemId: [0-9]+}/reviews")
    public ReviewResource reviews(@PathParam("itemId") long itemId) {
        return new ReviewResource();
    }
}
