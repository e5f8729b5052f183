package dev.ratelimit.openapi.testapp;

import dev.ratelimit.RateLimit;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The module: its limit covers every resource method without a class or method limit of its own. */
@ApplicationPath("/api")
@RateLimit(permitLimit = 100, windowSeconds = 60, name = "module")
public class ShopApplication extends Application {
}
