package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.RateLimit;
import dev.ratelimit.core.RateLimitPer;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * {@code per = APPLICATION} makes one count for every caller of the limit, on a resource method too (a cap
 * that protects a back end whatever the number of callers), beside the callers' own counts.
 */
class PerApplicationTest {

    @Path("/search")
    public static class Search {
        @GET
        @RateLimit(name = "backend", permitLimit = 2, windowSeconds = 60, per = RateLimitPer.APPLICATION)
        @RateLimit(name = "per-caller", permitLimit = 5, windowSeconds = 60)
        public String get() {
            return "found";
        }
    }

    @Test
    void twoCallersSpendFromOneCountOfTheApplicationAndEachFromItsOwn() {
        try (Embedded app = Embedded.builder().config("ratelimit.partition-header", "X-Api-Key").resources(Search.class)
                .start()) {
            HttpResponse<String> alice = app.get("/search", "X-Api-Key", "alice");
            HttpResponse<String> bob = app.get("/search", "X-Api-Key", "bob");
            HttpResponse<String> carol = app.get("/search", "X-Api-Key", "carol");

            assertThat(alice.statusCode()).isEqualTo(200);
            assertThat(alice.headers().firstValue("RateLimit").orElseThrow())
                    .isEqualTo("\"backend\";r=1;t=60, \"per-caller\";r=4;t=60");
            assertThat(bob.statusCode()).isEqualTo(200);
            assertThat(bob.headers().firstValue("RateLimit").orElseThrow())
                    .as("bob's own count is fresh, the application's is shared")
                    .isEqualTo("\"backend\";r=0;t=60, \"per-caller\";r=4;t=60");
            assertThat(carol.statusCode()).isEqualTo(429);
            assertThat(carol.body()).contains("\"violated-policies\":[\"backend\"]");
        }
    }

    @Test
    void configurationMakesALimitOneOfTheApplication() {
        try (Embedded app = Embedded.builder().config("ratelimit.partition-header", "X-Api-Key")
                .config("ratelimit.limits.per-caller.per", "application").resources(Search.class).start()) {
            assertThat(app.get("/search", "X-Api-Key", "alice").headers().firstValue("RateLimit").orElseThrow())
                    .contains("\"per-caller\";r=4");
            assertThat(app.get("/search", "X-Api-Key", "bob").headers().firstValue("RateLimit").orElseThrow())
                    .contains("\"per-caller\";r=3");
        }
    }
}
