package dev.ratelimit.it;

import static dev.ratelimit.it.Responses.assertNoRateLimitHeaders;
import static dev.ratelimit.it.Responses.assertRefusedBy;
import static dev.ratelimit.it.Responses.header;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitTesting;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import java.net.http.HttpResponse;
import java.util.UUID;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every configuration key that changes limits at run time, each with a real server
 * (Weld SE + Jersey) started with that configuration, answering over HTTP.
 */
class ConfigurationKeysTest {

    @Path("/limited")
    public static class Limited {
        @GET
        @RateLimit(permitLimit = 3, windowSeconds = 60, name = "listing")
        public String get() {
            return "ok";
        }

        @GET
        @Path("two")
        @RateLimit(permitLimit = 5, windowSeconds = 60, name = "outer")
        @RateLimit(permitLimit = 3, windowSeconds = 60, name = "inner")
        public String two() {
            return "ok";
        }
    }

    @ApplicationScoped
    public static class Work {
        @RateLimit(permitLimit = 1, windowSeconds = 60, name = "work")
        public String work() {
            return "worked";
        }
    }

    private static String key() {
        return "key-" + UUID.randomUUID();
    }

    private static Embedded.Builder app() {
        return Embedded.builder().resources(Limited.class).config("ratelimit.partition-header", "X-Api-Key");
    }

    @Test
    void enabledFalseDecidesCountsAndWritesNothingAndTheStartUpLineSaysSo() {
        try (LogCapture log = LogCapture.library();
             Embedded app = app().beans(Work.class).config("ratelimit.enabled", "false").start()) {
            String k = key();
            for (int i = 0; i < 6; i++) {
                HttpResponse<String> response = app.get("/limited", "X-Api-Key", k);
                assertThat(response.statusCode()).isEqualTo(200);
                assertNoRateLimitHeaders(response);
            }
            Work work = app.bean(Work.class);
            assertThat(work.work()).isEqualTo("worked");
            assertThat(work.work()).as("a bean limit is not applied either").isEqualTo("worked");
            assertThat(log.messages(Level.INFO)).anySatisfy(line -> assertThat(line)
                    .contains("disabled").contains("ratelimit.enabled=false"));
        }
    }

    @Test
    void modeShadowForEveryLimitNeverRefusesWritesNoHeaderAndLogsWhatItWouldHaveRefused() {
        try (LogCapture log = LogCapture.library();
             Embedded app = app().config("ratelimit.mode", "shadow").start()) {
            String k = key();
            for (int i = 0; i < 5; i++) {
                HttpResponse<String> response = app.get("/limited", "X-Api-Key", k);
                assertThat(response.statusCode()).as("request %d", i + 1).isEqualTo(200);
                assertNoRateLimitHeaders(response);
            }
            assertThat(log.messages(Level.INFO)).filteredOn(line -> line.contains("would have refused"))
                    .singleElement().asString().contains("\"listing\"").contains("would have refused 1 request");
        }
    }

    @Test
    void modeOffForEveryLimitAppliesNone() {
        try (Embedded app = app().config("ratelimit.mode", "off").start()) {
            String k = key();
            for (int i = 0; i < 5; i++) {
                HttpResponse<String> response = app.get("/limited", "X-Api-Key", k);
                assertThat(response.statusCode()).isEqualTo(200);
                assertNoRateLimitHeaders(response);
            }
        }
    }

    @Test
    void aLimitsModeBeatsTheGlobalMode() {
        try (Embedded app = app().config("ratelimit.mode", "off").config("ratelimit.limits.listing.mode", "enforce").start()) {
            String k = key();
            for (int i = 0; i < 3; i++) {
                assertThat(app.get("/limited", "X-Api-Key", k).statusCode()).isEqualTo(200);
            }
            assertRefusedBy(app.get("/limited", "X-Api-Key", k), "listing", 3, 60);
        }
    }

    @Test
    void permitLimitAndWindowSecondsReplaceTheAnnotationsValues() {
        try (Embedded app = app().config("ratelimit.limits.listing.permit-limit", "2")
                .config("ratelimit.limits.listing.window-seconds", "30").start()) {
            String k = key();
            HttpResponse<String> first = app.get("/limited", "X-Api-Key", k);
            assertThat(header(first, "RateLimit-Policy")).isEqualTo("\"listing\";q=2;w=30");
            assertThat(header(first, "RateLimit")).isEqualTo("\"listing\";r=1;t=30");
            app.get("/limited", "X-Api-Key", k);
            assertRefusedBy(app.get("/limited", "X-Api-Key", k), "listing", 2, 30);
        }
    }

    @Test
    void algorithmReplacesTheAnnotationsAlgorithm() {
        try (Embedded app = app().config("ratelimit.limits.listing.algorithm", "TOKEN_BUCKET").start()) {
            HttpResponse<String> first = app.get("/limited", "X-Api-Key", key());
            // a token bucket of 3 per 60 s is full again one interval (20 s) after one permit was spent
            assertThat(header(first, "RateLimit")).isEqualTo("\"listing\";r=2;t=20");
        }
    }

    @Test
    void aShadowLimitBesideAnEnforcedOneWritesNoHeaderAndNeverRefuses() {
        try (Embedded app = app().config("ratelimit.limits.inner.mode", "shadow").start()) {
            String k = key();
            for (int i = 1; i <= 5; i++) {
                HttpResponse<String> response = app.get("/limited/two", "X-Api-Key", k);
                assertThat(response.statusCode()).as("request %d: inner would have refused the 4th", i).isEqualTo(200);
                assertThat(header(response, "RateLimit-Policy")).isEqualTo("\"outer\";q=5;w=60");
                assertThat(header(response, "RateLimit")).isEqualTo("\"outer\";r=" + (5 - i) + ";t=60");
            }
            assertRefusedBy(app.get("/limited/two", "X-Api-Key", k), "outer", 5, 60);
        }
    }

    @Test
    void aLimitOffIsNotApplied() {
        try (Embedded app = app().config("ratelimit.limits.inner.mode", "off").start()) {
            String k = key();
            HttpResponse<String> response = null;
            for (int i = 0; i < 5; i++) {
                response = app.get("/limited/two", "X-Api-Key", k);
                assertThat(response.statusCode()).isEqualTo(200);
            }
            assertThat(header(response, "RateLimit-Policy")).isEqualTo("\"outer\";q=5;w=60");
        }
    }

    @Test
    void overridesApplyToTheGlobalLimitByItsName() {
        try (Embedded app = app().config("ratelimit.global.permit-limit", "100")
                .config("ratelimit.limits.application.permit-limit", "2")
                .config("ratelimit.global.algorithm", "STRICT_WINDOW").start()) {
            String k = key();
            HttpResponse<String> first = app.get("/limited/two", "X-Api-Key", k);
            assertThat(header(first, "RateLimit-Policy")).startsWith("\"application\";q=2;w=60");
            // a strict window keeps a permit one step (7.5 s) longer: 67.5 s, announced as 68
            assertThat(header(first, "RateLimit")).startsWith("\"application\";r=1;t=68");
            app.get("/limited/two", "X-Api-Key", k);
            assertThat(app.get("/limited/two", "X-Api-Key", k).statusCode()).isEqualTo(429);
        }
    }

    @Test
    void aPlanGivesTheCallersInItsRoleTheirOwnValuesAndCountsApart() {
        try (Embedded app = app().resources(BearerRoles.class)
                .config("ratelimit.plans", "gold")
                .config("ratelimit.plans.gold.role", "paying")
                .config("ratelimit.plans.gold.limits.listing.permit-limit", "5").start()) {
            String paying = "Bearer bob:paying";
            for (int i = 1; i <= 5; i++) {
                HttpResponse<String> response = app.get("/limited", "Authorization", paying);
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(header(response, "RateLimit-Policy")).isEqualTo("\"listing\";q=5;w=60");
            }
            assertRefusedBy(app.get("/limited", "Authorization", paying), "listing", 5, 60);
            HttpResponse<String> sameNameNoRole = app.get("/limited", "Authorization", "Bearer bob");
            assertThat(header(sameNameNoRole, "RateLimit")).as("bob in no plan counts apart")
                    .isEqualTo("\"listing\";r=2;t=60");
        }
    }

    @Test
    void aPlanWithModeOffIsExemptFromThatLimitOnly() {
        try (Embedded app = app().resources(BearerRoles.class)
                .config("ratelimit.plans", "internal")
                .config("ratelimit.plans.internal.limits.inner.mode", "off").start()) {
            String internal = "Bearer svc:internal";
            for (int i = 1; i <= 5; i++) {
                HttpResponse<String> response = app.get("/limited/two", "Authorization", internal);
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(header(response, "RateLimit-Policy")).isEqualTo("\"outer\";q=5;w=60");
            }
            assertRefusedBy(app.get("/limited/two", "Authorization", internal), "outer", 5, 60);
        }
    }

    @Test
    void theManualClockOfTheTestApiMovesTimeAndResetForgetsCounts() {
        try (Embedded app = app().config("ratelimit.test.manual-clock", "true").start()) {
            RateLimitTesting testing = app.bean(RateLimitTesting.class);
            String k = key();
            for (int i = 0; i < 3; i++) {
                app.get("/limited", "X-Api-Key", k);
            }
            assertThat(app.get("/limited", "X-Api-Key", k).statusCode()).isEqualTo(429);

            testing.clock().advanceSeconds(60);
            assertThat(app.get("/limited", "X-Api-Key", k).statusCode()).as("a window later").isEqualTo(200);
            app.get("/limited", "X-Api-Key", k);
            app.get("/limited", "X-Api-Key", k);
            assertThat(app.get("/limited", "X-Api-Key", k).statusCode()).isEqualTo(429);

            testing.reset();
            testing.clock().advanceMillis(1);
            assertThat(header(app.get("/limited", "X-Api-Key", k), "RateLimit")).as("forgotten")
                    .isEqualTo("\"listing\";r=2;t=60");
        }
    }

    @Test
    void aKeyNamingALimitNothingDeclaresIsWarnedOnceNamingTheKey() {
        try (LogCapture log = LogCapture.library();
             Embedded app = app().config("ratelimit.limits.listing.permit-limit", "4")
                     .config("ratelimit.limits.lisitng.permit-limit", "4")
                     .config("ratelimit.plans", "gold")
                     .config("ratelimit.plans.silver.limits.listing.permit-limit", "9").start()) {
            app.get("/limited", "X-Api-Key", key());
            app.get("/limited", "X-Api-Key", key());

            assertThat(log.messages(Level.WARNING)).as("checked once the resource methods are bound").hasSize(2)
                    .anySatisfy(line -> assertThat(line).contains("ratelimit.limits.lisitng.permit-limit")
                            .contains("\"lisitng\""))
                    .anySatisfy(line -> assertThat(line).contains("ratelimit.plans.silver.limits.listing.permit-limit"));
            assertThat(log.messages(Level.WARNING)).noneMatch(line -> line.contains("ratelimit.limits.listing."));
        }
    }

    /**
     * At start-up, before any request: Jersey says when it has deployed, so a key that names a limit only a resource
     * method could declare is checked then (docs/configuration.md, "Mistakes"), not when the first request arrives.
     */
    @Test
    void typosAreWarnedAboutAtStartUpBeforeAnyRequest(@TempDir java.nio.file.Path dir) throws java.io.IOException {
        java.nio.file.Path file = dir.resolve("limits.properties");
        java.nio.file.Files.writeString(file, "ratelimit.limits.listing.permit-limit=4\nratelimit.redis.uri=redis://x:6379\n");
        try (LogCapture log = LogCapture.library();
             Embedded app = app().config("ratelimit.limits-file", file.toString())
                     .config("ratelimit.limits.lisitng.permit-limit", "4")
                     .config("ratelimit.limits.Listing.mode", "off")
                     .config("ratelimit.limits.outer.window-seconds\nWARNING: forged", "4").start()) {
            assertThat(log.messages(Level.WARNING)).as("no request yet").hasSize(4)
                    .anySatisfy(line -> assertThat(line).contains("ratelimit.limits.lisitng.permit-limit")
                            .contains("\"lisitng\""))
                    .anySatisfy(line -> assertThat(line).contains("ratelimit.limits.Listing.mode")
                            .contains("differs only in case from the declared limit \"listing\""))
                    .anySatisfy(line -> assertThat(line).contains("the limits file " + file)
                            .contains("sets ratelimit.redis.uri, which the limits file does not read"))
                    .anySatisfy(line -> assertThat(line).contains("ratelimit.limits.outer.window-seconds\\nWARNING: forged"))
                    .noneMatch(line -> line.contains("\n"));
            app.get("/limited", "X-Api-Key", key());
            assertThat(log.messages(Level.WARNING)).as("not again").hasSize(4);
        }
    }

    /** {@code Authorization: Bearer <name>[:<role>,...]}: the example's authentication, for plans. */
    @jakarta.ws.rs.ext.Provider
    @jakarta.annotation.Priority(jakarta.ws.rs.Priorities.AUTHENTICATION)
    public static class BearerRoles implements jakarta.ws.rs.container.ContainerRequestFilter {
        @Override
        public void filter(jakarta.ws.rs.container.ContainerRequestContext request) {
            String authorization = request.getHeaderString("Authorization");
            if (authorization == null || !authorization.startsWith("Bearer ")) {
                return;
            }
            String[] parts = authorization.substring(7).split(":", 2);
            java.util.Set<String> roles = parts.length == 2 ? java.util.Set.of(parts[1].split(",")) : java.util.Set.of();
            java.security.Principal caller = () -> parts[0];
            request.setSecurityContext(new jakarta.ws.rs.core.SecurityContext() {
                @Override
                public java.security.Principal getUserPrincipal() {
                    return caller;
                }

                @Override
                public boolean isUserInRole(String role) {
                    return roles.contains(role);
                }

                @Override
                public boolean isSecure() {
                    return false;
                }

                @Override
                public String getAuthenticationScheme() {
                    return "Bearer";
                }
            });
        }
    }
}
