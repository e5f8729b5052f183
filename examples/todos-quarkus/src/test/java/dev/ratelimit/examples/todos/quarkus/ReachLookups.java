package dev.ratelimit.examples.todos.quarkus;

import dev.ratelimit.RateLimit;
import jakarta.enterprise.context.ApplicationScoped;

/** A limited bean that {@link ReachResource}'s methods call (test only: not part of the example). */
@ApplicationScoped
public class ReachLookups {

    @RateLimit(permitLimit = 5, windowSeconds = 60, name = "reach-lookup")
    public String lookup() {
        return "found";
    }
}
