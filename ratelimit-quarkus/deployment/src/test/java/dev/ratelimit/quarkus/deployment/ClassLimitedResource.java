package dev.ratelimit.quarkus.deployment;

import dev.ratelimit.RateLimit;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;

/**
 * A resource class with two class-level limits (their container on the class), and a business method that is not a
 * resource method: the filters decide {@link #both()}, and {@link #helper()} keeps its limits as a bean method
 * (test only).
 */
@Path("/class-limited")
@ApplicationScoped
@RateLimit(permitLimit = 5, windowSeconds = 60, name = "class-a")
@RateLimit(permitLimit = 2, windowSeconds = 60, name = "class-b")
public class ClassLimitedResource {

    @GET
    public String both() {
        return "both";
    }

    public String helper() {
        return "helper";
    }
}
