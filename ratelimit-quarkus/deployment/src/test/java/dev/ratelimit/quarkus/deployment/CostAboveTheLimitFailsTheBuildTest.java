package dev.ratelimit.quarkus.deployment;

import dev.ratelimit.RateLimit;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A cost above its limit fails the build, naming the method and the values, not the first request (SPEC 17). */
class CostAboveTheLimitFailsTheBuildTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(ReportResource.class))
            .assertException(BuildFailures.saying("Invalid rate limits (ratelimit-quarkus)",
                    "@RateLimit on ReportResource.report(): cost must be between 1 and permitLimit (2), was 5"));

    @Test
    void theBuildFails() {
        // assertException above: the application never starts
    }

    @Path("/report")
    public static class ReportResource {
        @GET
        @RateLimit(permitLimit = 2, windowSeconds = 60, name = "reports", cost = 5)
        public String report() {
            return "report";
        }
    }
}
