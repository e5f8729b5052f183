package dev.ratelimit.quarkus.deployment;

import dev.ratelimit.RateLimit;
import dev.ratelimit.core.RateLimitScope;
import jakarta.inject.Inject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

/** Resource methods of each kind the request path meets (test only). */
@Path("/items")
public class ItemResource {

    @Inject
    LimitedService service;

    @GET
    @Path("{id}")
    @RateLimit(permitLimit = 3, windowSeconds = 60, name = "items")
    public String item(@PathParam("id") String id) {
        return "item " + id;
    }

    @GET
    @Path("open")
    public String open() {
        return "open";
    }

    /** No limit of its own; calls a limited bean, which joins the request. */
    @GET
    @Path("bean")
    public String bean() {
        return service.work();
    }

    /** Decided after authorization ({@link TestSecurityFilters}). */
    @DELETE
    @Path("{id}")
    @RateLimit(permitLimit = 1, windowSeconds = 60, name = "delete", scope = RateLimitScope.PRINCIPAL)
    public void delete(@PathParam("id") String id) {
    }
}
