package dev.ratelimit.quarkus.deployment;

import dev.ratelimit.RateLimit;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPer;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Limits sharing a name spend from one count, so they must agree on whose count it is and on its algorithm: when they
 * do not, the build fails naming both methods, a resource method and a bean method alike, every problem listed.
 */
class SharedNameDisagreementFailsTheBuildTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(ApiResource.class, Backend.class))
            .assertException(BuildFailures.saying(
                    // each names both methods, whichever the build met first
                    "the limit name \"backend\" counts per ", "application on Backend.call()",
                    "caller on ApiResource.list()", "so they must agree on whose it is (per)",
                    "the limit name \"api\" has the algorithm ", "TOKEN_BUCKET on Backend.other()",
                    "SLIDING_WINDOW on ApiResource.list()", "so they must share an algorithm"));

    @Test
    void theBuildFails() {
        // assertException above: the application never starts
    }

    @Path("/api")
    public static class ApiResource {
        @GET
        @RateLimit(name = "backend", permitLimit = 10, windowSeconds = 60)
        @RateLimit(name = "api", permitLimit = 10, windowSeconds = 60)
        public String list() {
            return "list";
        }
    }

    @ApplicationScoped
    public static class Backend {
        @RateLimit(name = "backend", permitLimit = 10, windowSeconds = 60, per = RateLimitPer.APPLICATION)
        public String call() {
            return "called";
        }

        @RateLimit(name = "api", permitLimit = 10, windowSeconds = 60, algorithm = RateLimitAlgorithm.TOKEN_BUCKET)
        public String other() {
            return "other";
        }
    }
}
