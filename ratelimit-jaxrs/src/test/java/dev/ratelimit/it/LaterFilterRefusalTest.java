package dev.ratelimit.it;

import static dev.ratelimit.it.Responses.assertNoRateLimitHeaders;
import static dev.ratelimit.it.Responses.assertRefusedBy;
import static dev.ratelimit.it.Responses.header;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.RateLimit;
import dev.ratelimit.core.RateLimitScope;
import jakarta.annotation.Priority;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Provider;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * A refusal is answered once the remaining request filters have run. When a later filter
 * refuses too, its answer is sent instead of the 429, without rate-limit headers, and the request spends
 * nothing; a PRINCIPAL refusal gives back what the TRANSPORT limits spent.
 */
class LaterFilterRefusalTest {

    /** An authorization check right after the TRANSPORT limits: 403 for {@code X-Deny: yes}. */
    @Provider
    @Priority(Priorities.AUTHORIZATION + 1)
    public static class DenyingAuthorizationFilter implements ContainerRequestFilter {
        @Override
        public void filter(ContainerRequestContext request) {
            if ("yes".equals(request.getHeaderString("X-Deny"))) {
                request.abortWith(Response.status(403).build());
            }
        }
    }

    /** A check after the PRINCIPAL limits: 403 for {@code X-Late-Deny: yes}. */
    @Provider
    @Priority(Priorities.HEADER_DECORATOR)
    public static class LateDenyingFilter implements ContainerRequestFilter {
        @Override
        public void filter(ContainerRequestContext request) {
            if ("yes".equals(request.getHeaderString("X-Late-Deny"))) {
                request.abortWith(Response.status(403).build());
            }
        }
    }

    @Path("/")
    public static class Limits {
        @GET
        @Path("transport")
        @RateLimit(permitLimit = 2, windowSeconds = 60, name = "wide")
        @RateLimit(permitLimit = 1, windowSeconds = 60, name = "narrow")
        public String transport() {
            return "ok";
        }

        @GET
        @Path("wide")
        @RateLimit(permitLimit = 2, windowSeconds = 60, name = "wide")
        public String wide() {
            return "ok";
        }

        @GET
        @Path("mixed")
        @RateLimit(permitLimit = 3, windowSeconds = 60, name = "t")
        @RateLimit(permitLimit = 1, windowSeconds = 60, name = "p", scope = RateLimitScope.PRINCIPAL)
        public String mixed() {
            return "ok";
        }

        @GET
        @Path("t")
        @RateLimit(permitLimit = 3, windowSeconds = 60, name = "t")
        public String transportOnly() {
            return "ok";
        }
    }

    private static Embedded start() {
        return Embedded.builder()
                .resources(Limits.class, DenyingAuthorizationFilter.class, LateDenyingFilter.class)
                .start();
    }

    @Test
    void laterFilterRefusalOfATransportRefusedRequestIsSentWithoutHeadersAndSpendsNothing() {
        try (Embedded app = start()) {
            assertThat(app.get("/transport").statusCode()).isEqualTo(200); // wide 1 left, narrow 0 left

            HttpResponse<String> denied = app.get("/transport", "X-Deny", "yes");

            assertThat(denied.statusCode()).isEqualTo(403);
            assertNoRateLimitHeaders(denied);
            assertRefusedBy(app.get("/transport"), "narrow", 1, 60); // the limiter did refuse it
            HttpResponse<String> wide = app.get("/wide");
            assertThat(wide.statusCode()).isEqualTo(200);
            assertThat(header(wide, "RateLimit-Remaining")).as("wide after two allowed requests").isEqualTo("0");
        }
    }

    @Test
    void laterFilterRefusalAfterAPrincipalRefusalGivesBackTheTransportPermit() {
        try (Embedded app = start()) {
            assertThat(app.get("/mixed").statusCode()).isEqualTo(200); // t 2 left, p 0 left

            HttpResponse<String> denied = app.get("/mixed", "X-Late-Deny", "yes");

            assertThat(denied.statusCode()).isEqualTo(403);
            assertNoRateLimitHeaders(denied);
            HttpResponse<String> t = app.get("/t");
            assertThat(t.statusCode()).isEqualTo(200);
            assertThat(header(t, "RateLimit-Remaining")).as("t after two allowed requests").isEqualTo("1");
        }
    }

    @Test
    void principalRefusalAfterTransportAllowedGivesBackTheTransportPermit() {
        try (Embedded app = start()) {
            assertThat(app.get("/mixed").statusCode()).isEqualTo(200); // t 2 left, p 0 left

            HttpResponse<String> refused = app.get("/mixed");
            assertRefusedBy(refused, "p", 1, 60);
            assertThat(header(refused, "RateLimit")).startsWith("\"t\";r=2;");
            assertRefusedBy(app.get("/mixed"), "p", 1, 60);

            HttpResponse<String> t = app.get("/t");
            assertThat(t.statusCode()).isEqualTo(200);
            assertThat(header(t, "RateLimit-Remaining")).as("t after two allowed requests").isEqualTo("1");
        }
    }
}
