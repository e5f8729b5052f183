package dev.ratelimit.it;

import static dev.ratelimit.it.Responses.header;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.RateLimit;
import dev.ratelimit.core.RateLimitCaller;
import dev.ratelimit.core.RateLimitPlanResolver;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/**
 * An application chooses plans its own way with an enabled {@code @Alternative}
 * {@link RateLimitPlanResolver}; it is called at most once per request, and an answer it cannot give (it throws,
 * or names a plan {@code ratelimit.plans} does not list) puts the caller in no plan, logged at most once a
 * minute, never a 500.
 */
class PlanResolverTest {

    /** The plan a gateway wrote into a header (after checking the caller's token, say). */
    @Alternative
    @Priority(1)
    @ApplicationScoped
    public static class HeaderPlans implements RateLimitPlanResolver {
        static final AtomicInteger CALLS = new AtomicInteger();

        @Override
        public String plan(RateLimitCaller caller) {
            CALLS.incrementAndGet();
            String plan = caller.header("X-Plan");
            if ("broken".equals(plan)) {
                throw new IllegalStateException("the plan database is down");
            }
            return plan;
        }
    }

    @Path("/plans")
    public static class Limited {
        @GET
        @RateLimit(permitLimit = 2, windowSeconds = 60, name = "listing")
        @RateLimit(permitLimit = 100, windowSeconds = 60, name = "wide")
        public String get() {
            return "ok";
        }
    }

    private static Embedded.Builder app() {
        return Embedded.builder().beans(HeaderPlans.class).resources(Limited.class)
                .config("ratelimit.partition-header", "X-Api-Key")
                .config("ratelimit.plans", "pro,free")
                .config("ratelimit.plans.pro.limits.listing.permit-limit", "4");
    }

    @Test
    void theResolversPlanSetsTheValuesAndIsAskedOncePerRequest() {
        HeaderPlans.CALLS.set(0);
        try (Embedded app = app().start()) {
            HttpResponse<String> pro = app.get("/plans", "X-Api-Key", "a", "X-Plan", "pro");
            HttpResponse<String> free = app.get("/plans", "X-Api-Key", "a", "X-Plan", "free");

            assertThat(header(pro, "RateLimit-Policy")).startsWith("\"listing\";q=4;w=60");
            assertThat(header(free, "RateLimit-Policy")).startsWith("\"listing\";q=2;w=60");
            assertThat(HeaderPlans.CALLS).as("two requests, two limits each: one call per request").hasValue(2);
        }
    }

    @Test
    void aResolverThatThrowsOrNamesAnUnknownPlanLeavesTheCallerInNoPlanLoggedAtMostOnceAMinute() {
        try (LogCapture log = LogCapture.library(); Embedded app = app().start()) {
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> broken = app.get("/plans", "X-Api-Key", "b" + i, "X-Plan", "broken");
                assertThat(broken.statusCode()).isEqualTo(200);
                assertThat(header(broken, "RateLimit-Policy")).startsWith("\"listing\";q=2;w=60");
                HttpResponse<String> unknown = app.get("/plans", "X-Api-Key", "u" + i, "X-Plan", "platinum");
                assertThat(unknown.statusCode()).isEqualTo(200);
                assertThat(header(unknown, "RateLimit-Policy")).startsWith("\"listing\";q=2;w=60");
            }

            assertThat(log.messages(Level.WARNING)).as("one line for the first of six failures within a minute")
                    .singleElement().asString().contains("the plan database is down");
        }
    }
}
