package dev.ratelimit.quarkus.deployment;

import dev.ratelimit.RateLimit;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One name twice among the limits covering a method (its class's and its own, with other values) fails the build,
 * naming the method: on a resource method and on a plain CDI bean method alike, every problem listed.
 */
class DuplicateNameFailsTheBuildTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(ApiResource.class, Pricing.class))
            .assertException(BuildFailures.saying(
                    "@RateLimit on ApiResource.list(): name \"api\" is used by more than one limit covering the method",
                    "@RateLimit on Pricing.quote(): name \"quote\" is used by more than one limit covering the method"));

    @Test
    void theBuildFails() {
        // assertException above: the application never starts
    }

    @Path("/api")
    @RateLimit(permitLimit = 10, windowSeconds = 60, name = "api")
    public static class ApiResource {
        @GET
        @RateLimit(permitLimit = 20, windowSeconds = 60, name = "api")
        public String list() {
            return "list";
        }
    }

    @ApplicationScoped
    public static class Pricing {
        @RateLimit(permitLimit = 5, windowSeconds = 1, name = "quote")
        @RateLimit(permitLimit = 50, windowSeconds = 60, name = "quote")
        public String quote() {
            return "42";
        }
    }
}
