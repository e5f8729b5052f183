package dev.ratelimit.it;

import static dev.ratelimit.it.Responses.assertNoRateLimitHeaders;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitStore;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.RequestScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/**
 * SPEC 7: a store that fails makes the request fail with 500 and an empty body, logged once per failure
 * with the limit's name. The store is replaced the standard CDI way, by an enabled alternative.
 *
 * <p>The library may rate-limit these lines (one a minute, per JVM), so each test asserts on the line of
 * its first failure only, and each failure path (filter, bean interceptor) is exercised by one test.
 */
class StoreFailureTest {

    /** Fails every decision, as a remote store that cannot be reached does. */
    @Alternative
    @Priority(1)
    @ApplicationScoped
    public static class FailingStore implements RateLimitStore {
        @Override
        public CompletionStage<RateLimitDecision> acquire(String partition, List<RateLimitPolicy> policies) {
            return CompletableFuture.failedFuture(new IllegalStateException("store unreachable"));
        }

        @Override
        public void release(RateLimitDecision decision) {
        }
    }

    @Path("/guarded")
    public static class Guarded {
        static final AtomicInteger RUNS = new AtomicInteger();

        @GET
        @RateLimit(permitLimit = 5, windowSeconds = 60, name = "guarded")
        public String get() {
            RUNS.incrementAndGet();
            return "ran";
        }
    }

    @ApplicationScoped
    public static class GuardedService {
        @RateLimit(permitLimit = 5, windowSeconds = 60, name = "bean-guarded")
        public String work() {
            return "ran";
        }
    }

    @Path("/calls-bean")
    @RequestScoped
    public static class CallsBean {
        @Inject
        GuardedService service;

        @GET
        public String get() {
            return service.work();
        }
    }

    @Test
    void failingStoreOnResourceLimitIsA500WithEmptyBodyLoggedOnceNamingTheLimit() {
        Guarded.RUNS.set(0);
        try (LogCapture log = LogCapture.library();
             Embedded app = Embedded.builder().beans(FailingStore.class).resources(Guarded.class).start()) {

            HttpResponse<String> first = app.get("/guarded");

            assertFailed(first);
            assertThat(log.messages(Level.SEVERE)).singleElement().asString()
                    .contains("\"guarded\"").contains("Guarded.get()");

            HttpResponse<String> second = app.get("/guarded");

            assertFailed(second);
            assertThat(log.messages(Level.SEVERE)).as("never more than one line per failure").hasSizeLessThanOrEqualTo(2);
            assertThat(Guarded.RUNS).as("method runs").hasValue(0);
        }
    }

    @Test
    void failingStoreOnBeanLimitIsA500WithEmptyBodyLoggedOnceNamingTheLimit() {
        try (LogCapture log = LogCapture.library();
             Embedded app = Embedded.builder()
                     .beans(FailingStore.class, GuardedService.class, CallsBean.class)
                     .resources(CallsBean.class)
                     .start()) {

            HttpResponse<String> response = app.get("/calls-bean");

            assertFailed(response);
            assertThat(log.messages(Level.SEVERE)).singleElement().asString().contains("bean-guarded");
        }
    }

    private static void assertFailed(HttpResponse<String> response) {
        assertThat(response.statusCode()).isEqualTo(500);
        assertThat(response.body()).isEmpty();
        assertNoRateLimitHeaders(response);
    }
}
