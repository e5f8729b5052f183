package dev.ratelimit.quarkus.deployment;

import dev.ratelimit.RateLimit;
import jakarta.enterprise.context.ApplicationScoped;

/** A bean limit, which keeps the CDI interceptor (test only). */
@ApplicationScoped
public class LimitedService {

    @RateLimit(permitLimit = 2, windowSeconds = 60, name = "work")
    public String work() {
        return "worked";
    }
}
