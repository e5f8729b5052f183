package dev.ratelimit.it;

import static dev.ratelimit.it.Responses.header;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitExceededException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The programmatic API ({@link RateLimiter}): inside a request it spends for the request's caller and
 * joins the request (its headers, its give-back on a later 429); outside, for the CDI caller or an explicit
 * partition; a charge goes into debt and never throws for the limit.
 */
class ProgrammaticApiTest {

    @Path("/api")
    @ApplicationScoped
    public static class Api {
        @Inject
        RateLimiter limiter;

        @Inject
        Guarded guarded;

        /** Not limited itself: the items limit is spent from code. */
        @GET
        @Path("items")
        public String items(@QueryParam("n") int n) {
            limiter.acquire("items", n);
            return "got " + n;
        }

        /** Spends items, then calls a bean whose limit may refuse: then the items are given back. */
        @GET
        @Path("items-then-bean")
        public String itemsThenBean(@QueryParam("n") int n) {
            limiter.acquire("items", n);
            return guarded.work();
        }

        @GET
        @Path("charge")
        public String charge(@QueryParam("n") int n) {
            limiter.charge("tokens", n);
            return "charged " + n;
        }

        @GET
        @Path("tokens")
        @RateLimit(permitLimit = 10, windowSeconds = 60, name = "tokens")
        public String tokens() {
            return "answered";
        }
    }

    @ApplicationScoped
    public static class Guarded {
        @RateLimit(permitLimit = 1, windowSeconds = 60, name = "guarded")
        public String work() {
            return "worked";
        }
    }

    private static Embedded.Builder app() {
        return Embedded.builder().beans(Api.class, Guarded.class).resources(Api.class)
                .config("ratelimit.partition-header", "X-Api-Key")
                .config("ratelimit.limits.items.permit-limit", "10")
                .config("ratelimit.limits.items.window-seconds", "60");
    }

    private static String key() {
        return "key-" + UUID.randomUUID();
    }

    @Test
    void anAcquireInARequestSpendsForTheRequestsCallerAndShowsInItsHeaders() {
        try (Embedded app = app().start()) {
            String k = key();
            HttpResponse<String> first = app.get("/api/items?n=4", "X-Api-Key", k);
            HttpResponse<String> second = app.get("/api/items?n=5", "X-Api-Key", k);
            HttpResponse<String> otherCaller = app.get("/api/items?n=1", "X-Api-Key", key());

            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(header(first, "RateLimit")).isEqualTo("\"items\";r=6;t=60");
            assertThat(header(first, "RateLimit-Policy")).isEqualTo("\"items\";q=10;w=60");
            assertThat(header(second, "RateLimit")).isEqualTo("\"items\";r=1;t=60");
            assertThat(header(otherCaller, "RateLimit")).isEqualTo("\"items\";r=9;t=60");
        }
    }

    @Test
    void anAcquireOverWhatIsLeftIsA429DescribingTheLimitAndSpendsNothing() {
        try (Embedded app = app().start()) {
            String k = key();
            app.get("/api/items?n=8", "X-Api-Key", k);

            HttpResponse<String> refused = app.get("/api/items?n=3", "X-Api-Key", k);

            Responses.assertRefusedBy(refused, "items", 10, 60);
            assertThat(refused.body()).contains("\"violated-policies\":[\"items\"]");
            assertThat(header(app.get("/api/items?n=2", "X-Api-Key", k), "RateLimit")).isEqualTo("\"items\";r=0;t=60");
        }
    }

    @Test
    void aLaterRefusalInTheSameRequestGivesTheAcquiredPermitsBack() {
        try (Embedded app = app().start()) {
            String k = key();
            assertThat(app.get("/api/items-then-bean?n=4", "X-Api-Key", k).statusCode()).isEqualTo(200);

            HttpResponse<String> refused = app.get("/api/items-then-bean?n=4", "X-Api-Key", k);

            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.body()).contains("\"violated-policies\":[\"guarded\"]");
            assertThat(header(app.get("/api/items?n=1", "X-Api-Key", k), "RateLimit"))
                    .as("4 spent by the first request, none by the refused one").isEqualTo("\"items\";r=5;t=60");
        }
    }

    @Test
    void aChargeSpendsPastTheLimitNeverThrowsAndTheLimitRefusesWhileInDebt() {
        try (Embedded app = app().start()) {
            String k = key();
            HttpResponse<String> charged = app.get("/api/charge?n=25", "X-Api-Key", k);

            assertThat(charged.statusCode()).isEqualTo(200);
            assertThat(header(charged, "RateLimit")).as("in debt: r=0").isEqualTo("\"tokens\";r=0;t=60");
            assertThat(app.get("/api/tokens", "X-Api-Key", k).statusCode()).as("refused while in debt").isEqualTo(429);
            assertThat(app.get("/api/charge?n=1", "X-Api-Key", k).statusCode()).as("a charge never refuses").isEqualTo(200);
        }
    }

    @Test
    void outsideARequestTheApiSpendsForAnExplicitPartition() {
        try (Embedded app = app().startCdi()) {
            RateLimiter limiter = app.bean(RateLimiter.class);

            RateLimitDecision decision = limiter.acquire("items", 7, "tenant-1");

            assertThat(decision.allowed()).isTrue();
            assertThat(decision.outcome(0).remaining()).isEqualTo(3);
            assertThatThrownBy(() -> limiter.acquire("items", 4, "tenant-1"))
                    .isInstanceOf(RateLimitExceededException.class)
                    .satisfies(e -> assertThat(((RateLimitExceededException) e).getViolatedPolicies()).containsExactly("items"));
            assertThat(limiter.acquire("items", 10, "tenant-2").outcome(0).remaining()).isZero();
            assertThat(limiter.acquireAsync("items", 1).toCompletableFuture().join().outcome(0).remaining())
                    .as("the CDI caller: anonymous, a count of its own").isEqualTo(9);
        }
    }

    @Test
    void badArgumentsAreRefusedNamingTheLimitAndTheValue() {
        try (Embedded app = app().startCdi()) {
            RateLimiter limiter = app.bean(RateLimiter.class);

            assertThatIllegalArgumentException().isThrownBy(() -> limiter.acquire("nowhere", 1, "p"))
                    .withMessageContaining("\"nowhere\"");
            assertThatIllegalArgumentException().isThrownBy(() -> limiter.acquire("items", 0, "p"))
                    .withMessageContaining("\"items\"").withMessageContaining("was 0");
            assertThatIllegalArgumentException().isThrownBy(() -> limiter.acquire("items", 11, "p"))
                    .withMessageContaining("\"items\"").withMessageContaining("11").withMessageContaining("can never succeed");
            assertThatIllegalArgumentException().isThrownBy(() -> limiter.charge("items", -3, "p"))
                    .withMessageContaining("was -3");
        }
    }
}
