package dev.ratelimit.it;

import static dev.ratelimit.it.Responses.assertNoRateLimitHeaders;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.RateLimit;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitStore;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.RequestScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/**
 * Every store, custom ones included, is bounded by {@code ratelimit.store.timeout-millis} and
 * the failure policy {@code ratelimit.store.on-failure}, applied once around it by the engine: a store that
 * fails, throws, or never answers gets each request decided within the timeout, by the policy; one warning
 * per outage, from one place, whichever integration (filter or interceptor) saw it.
 */
class StoreFailureTest {

    /** Fails every decision, as a remote store that cannot be reached does. */
    @Alternative
    @Priority(1)
    @ApplicationScoped
    public static class FailingStore implements RateLimitStore {
        @Override
        public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
            return CompletableFuture.failedFuture(new IllegalStateException("store unreachable"));
        }

        @Override
        public CompletionStage<Void> release(RateLimitDecision decision) {
            return CompletableFuture.completedFuture(null);
        }
    }

    /** Throws instead of answering with a stage. */
    @Alternative
    @Priority(1)
    @ApplicationScoped
    public static class ThrowingStore implements RateLimitStore {
        @Override
        public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
            throw new IllegalStateException("broken store");
        }

        @Override
        public CompletionStage<Void> release(RateLimitDecision decision) {
            throw new IllegalStateException("broken store");
        }
    }

    /** Never completes its stage: without the engine's timeout a request would wait forever. */
    @Alternative
    @Priority(1)
    @ApplicationScoped
    public static class SilentStore implements RateLimitStore {
        @Override
        public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
            return new CompletableFuture<>();
        }

        @Override
        public CompletionStage<Void> release(RateLimitDecision decision) {
            return new CompletableFuture<>();
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
    void failingStoreOnAResourceLimitIsA500WithEmptyBodyWarnedOncePerOutageNamingTheLimit() {
        Guarded.RUNS.set(0);
        try (LogCapture log = LogCapture.library();
             Embedded app = Embedded.builder().beans(FailingStore.class).resources(Guarded.class).start()) {

            assertFailed(app.get("/guarded"));
            assertFailed(app.get("/guarded"));
            assertFailed(app.get("/guarded"));

            assertThat(log.messages(Level.WARNING)).singleElement().asString()
                    .contains("\"guarded\"").contains("FailingStore").contains("once per outage");
            assertThat(log.messages(Level.SEVERE)).isEmpty();
            assertThat(Guarded.RUNS).as("method runs").hasValue(0);
        }
    }

    @Test
    void failingStoreOnABeanLimitIsA500WithEmptyBodyFromTheSameOutageLog() {
        try (LogCapture log = LogCapture.library();
             Embedded app = Embedded.builder()
                     .beans(FailingStore.class, GuardedService.class, CallsBean.class)
                     .resources(CallsBean.class, Guarded.class)
                     .start()) {

            assertFailed(app.get("/calls-bean"));
            assertFailed(app.get("/guarded"));
            assertFailed(app.get("/calls-bean"));

            assertThat(log.messages(Level.WARNING)).as("one outage, seen by the interceptor and the filter")
                    .singleElement().asString().contains("bean-guarded");
            assertThat(log.messages(Level.SEVERE)).isEmpty();
        }
    }

    @Test
    void storeThatThrowsIsDecidedByThePolicy() {
        try (LogCapture log = LogCapture.library();
             Embedded app = Embedded.builder().beans(ThrowingStore.class).resources(Guarded.class)
                     .config("ratelimit.store.on-failure", "allow").start()) {

            HttpResponse<String> allowed = app.get("/guarded");

            assertThat(allowed.statusCode()).isEqualTo(200);
            assertThat(allowed.headers().firstValue("RateLimit-Remaining")).as("uncounted: the whole limit").hasValue("5");
            assertThat(log.messages(Level.WARNING)).singleElement().asString().contains("broken store");
        }
    }

    /** Each request would wait forever without the engine's timeout (the client gives up after 10 s and fails the test). */
    @Test
    void storeThatNeverAnswersIsDecidedWithinTheTimeoutByThePolicy() {
        try (LogCapture log = LogCapture.library();
             Embedded app = Embedded.builder().beans(SilentStore.class)
                     .beans(GuardedService.class, CallsBean.class).resources(Guarded.class, CallsBean.class)
                     .config("ratelimit.store.timeout-millis", "100")
                     .config("ratelimit.store.on-failure", "local").start()) {

            for (int i = 0; i < 5; i++) {
                assertThat(app.get("/guarded").statusCode()).as("request %d, counted locally", i + 1).isEqualTo(200);
            }
            HttpResponse<String> sixth = app.get("/guarded");
            assertThat(sixth.statusCode()).as("the local count refuses the sixth").isEqualTo(429);
            assertThat(app.get("/calls-bean").statusCode()).as("a bean limit, through the interceptor").isEqualTo(200);

            assertThat(log.messages(Level.WARNING)).singleElement().asString()
                    .contains("no answer within 100 ms").contains("each instance counts alone");
        }
    }

    private static void assertFailed(HttpResponse<String> response) {
        assertThat(response.statusCode()).isEqualTo(500);
        assertThat(response.body()).isEmpty();
        assertNoRateLimitHeaders(response);
    }
}
