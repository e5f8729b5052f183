package dev.ratelimit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.RateLimit;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A cost above its limit fails the build, naming the method and the values, not the first request; a class's
 * limit is named once, with the first method it covers, however many it covers.
 */
class CostAboveTheLimitFailsTheBuildTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(ReportResource.class, BulkResource.class))
            .assertException(BuildFailures.saying("Invalid rate limits (ratelimit-quarkus)",
                    "@RateLimit on ReportResource.report(): cost must be between 1 and permitLimit (2), was 5",
                    "@RateLimit on BulkResource (covering BulkResource.")
                    .andThen(failure -> assertThat(failure.getMessage().split("@RateLimit on BulkResource", -1))
                            .as("the class's limit named once: %s", failure.getMessage()).hasSize(2)));

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

    @Path("/bulk")
    @RateLimit(permitLimit = 3, windowSeconds = 60, name = "bulk", cost = 4)
    public static class BulkResource {
        @GET
        public String list() {
            return "list";
        }

        @POST
        public String add(String item) {
            return item;
        }
    }
}
