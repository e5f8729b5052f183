package dev.ratelimit.openapi.testapp;

import dev.ratelimit.RateLimit;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;

/** A sub-resource (no @Path of its own) with a class limit; the module does not apply to it. */
@RateLimit(permitLimit = 20, windowSeconds = 60, name = "reviews")
public class ReviewResource {

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimit(permitLimit = 10, windowSeconds = 1, name = "review-reads")
    public List<String> all() {
        return List.of();
    }

    @POST
    public void add(String review) {
    }

    @GET
    @Path("{reviewId}")
    @Produces(MediaType.TEXT_PLAIN)
    public String one(@PathParam("reviewId") String reviewId) {
        return reviewId;
    }
}
