package dev.ratelimit.examples.todos.quarkus;

import dev.ratelimit.RateLimit;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * A plain CDI bean limited by two {@code @RateLimit}s on its class: the form ArC (CDI Lite) does not bind
 * as repeatable interceptor bindings; the library binds their container, {@code @RateLimit.List}.
 */
@ApplicationScoped
@RateLimit(permitLimit = 2, windowSeconds = 60, name = "class-first")
@RateLimit(permitLimit = 3, windowSeconds = 60, name = "class-second")
public class RepeatedClassLimitBean {

    public String call() {
        return "repeated";
    }

    /** Covered by both class limits, and by one of its own. */
    @RateLimit(permitLimit = 1, windowSeconds = 60, name = "method-own")
    public String callWithOwnLimit() {
        return "own";
    }
}
