package dev.ratelimit.examples.todos.quarkus;

import dev.ratelimit.RateLimit;
import jakarta.enterprise.context.ApplicationScoped;

/** A plain CDI bean limited by one {@code @RateLimit} on its class. */
@ApplicationScoped
@RateLimit(permitLimit = 2, windowSeconds = 60, name = "class-single")
public class SingleClassLimitBean {

    public String call() {
        return "single";
    }
}
