package dev.ratelimit.it;

import static dev.ratelimit.it.Responses.header;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.RateLimit;
import dev.ratelimit.cdi.RateLimitRuntime;
import dev.ratelimit.cdi.RequestLedgers;
import dev.ratelimit.core.engine.RequestLedger;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.RequestScoped;
import jakarta.enterprise.context.control.RequestContextController;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * How a request's ledger reaches the interceptor and the programmatic API: on the thread of its filters for a
 * method served there, through the request context for one that may go on elsewhere; and never beyond its
 * request.
 */
class RequestLedgerReachTest {

    @ApplicationScoped
    public static class Lookups {
        @RateLimit(permitLimit = 5, windowSeconds = 60, name = "lookup")
        public String lookup() {
            return "found";
        }
    }

    @Path("/reach")
    @RequestScoped
    public static class Resource {
        @Inject
        Lookups lookups;

        @GET
        @Path("/sync")
        @RateLimit(permitLimit = 9, windowSeconds = 60, name = "outer")
        public String sync() {
            return lookups.lookup();
        }

        @GET
        @Path("/stage")
        @RateLimit(permitLimit = 9, windowSeconds = 60, name = "outer")
        public CompletionStage<String> stage() {
            return CompletableFuture.completedFuture(lookups.lookup());
        }

        @GET
        @Path("/suspended")
        @RateLimit(permitLimit = 9, windowSeconds = 60, name = "outer")
        public void suspended(@Suspended AsyncResponse response) {
            response.resume(lookups.lookup());
        }
    }

    private static Embedded.Builder app() {
        return Embedded.builder().beans(Lookups.class, Resource.class).resources(Resource.class)
                .config("ratelimit.partition-header", "X-Api-Key");
    }

    @Test
    void aBeanCalledFromAnyKindOfResourceMethodJoinsTheRequest() {
        try (Embedded app = app().start()) {
            for (String path : new String[] {"/reach/sync", "/reach/stage", "/reach/suspended"}) {
                HttpResponse<String> response = app.get(path, "X-Api-Key", "caller-" + path);
                assertThat(response.statusCode()).as(path).isEqualTo(200);
                assertThat(response.body()).as(path).isEqualTo("found");
                // both limits of the one request, in order: joined, not decided apart
                assertThat(header(response, "RateLimit")).as(path)
                        .isEqualTo("\"outer\";r=8;t=60, \"lookup\";r=4;t=60");
            }
            // Weld: on the thread, and in the request context for the stage and the suspended response
            assertThat(app.bean(RateLimitRuntime.class).ledgers())
                    .hasToString("RequestLedgers[on the thread when served there, else in the request context]");
        }
    }

    @Test
    void concurrentRequestsEachSeeOnlyTheirOwnLedger() throws Exception {
        try (Embedded app = app().start()) {
            int callers = 64;
            ExecutorService clients = Executors.newFixedThreadPool(16);
            try {
                List<Future<HttpResponse<String>>> answers = new ArrayList<>();
                for (int i = 0; i < callers; i++) {
                    String key = "concurrent-" + i;
                    // two requests per caller, so the second one's counts show whether the first was its own
                    answers.add(clients.submit(() -> {
                        app.get("/reach/sync", "X-Api-Key", key);
                        return app.get("/reach/sync", "X-Api-Key", key);
                    }));
                }
                for (Future<HttpResponse<String>> answer : answers) {
                    HttpResponse<String> response = answer.get(30, TimeUnit.SECONDS);
                    assertThat(response.statusCode()).isEqualTo(200);
                    assertThat(header(response, "RateLimit")).isEqualTo("\"outer\";r=7;t=60, \"lookup\";r=3;t=60");
                }
            } finally {
                clients.shutdownNow();
            }
        }
    }

    @Test
    void aLedgerOnTheThreadIsTheRequestsUntilItsHeadersAreWritten() throws Exception {
        try (Embedded app = app().startCdi()) {
            RateLimitRuntime runtime = app.bean(RateLimitRuntime.class);
            RequestLedgers ledgers = runtime.ledgers();
            RequestContextController requestContext = app.bean(RequestContextController.class);
            RequestLedger first = runtime.engine().ledger("caller-a");
            RequestLedger second = runtime.engine().ledger("caller-b");
            requestContext.activate();
            try {
                assertThat(ledgers.current()).isNull();
                ledgers.publish(first, true);
                assertThat(ledgers.current()).isSameAs(first);
                assertThat(onAnotherThread(ledgers)).as("another thread's request").isNull();
                ledgers.withdraw(second); // not this thread's: changes nothing
                assertThat(ledgers.current()).isSameAs(first);
                ledgers.withdraw(first);
                assertThat(ledgers.current()).isNull();

                // a ledger left on the thread (its response filters never ran) gives way to the next request's
                ledgers.publish(first, true);
                ledgers.publish(second, false);
                assertThat(ledgers.current()).isSameAs(second);
            } finally {
                requestContext.deactivate();
            }
            assertThat(ledgers.current()).as("after the request context").isNull();
        }
    }

    private static RequestLedger onAnotherThread(RequestLedgers ledgers) throws InterruptedException {
        AtomicReference<RequestLedger> seen = new AtomicReference<>();
        Thread other = new Thread(() -> seen.set(ledgers.current()));
        other.start();
        other.join();
        return seen.get();
    }
}
