package dev.ratelimit.examples.todos;

import dev.ratelimit.RateLimit;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/**
 * The module: its {@code @RateLimit} covers every resource method of the application that has no
 * {@code @RateLimit} of its own (on its method or its class).
 *
 * <p>It deliberately overrides neither {@code getClasses()} nor {@code getSingletons()}: a non-empty set
 * would switch off the runtime's scanning, and with it the discovery of the library's providers.
 */
@ApplicationPath("/")
@RateLimit(permitLimit = 100, windowSeconds = 60, name = "module")
public class TodosApplication extends Application {
}
