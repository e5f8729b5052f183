package dev.ratelimit.examples.todos.quarkus;

import static dev.ratelimit.examples.todos.quarkus.EventLoops.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.Vertx;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * SPEC 20 on Quarkus: a {@code @RateLimit} bean method returning a {@code Uni} that waits for its permit
 * ({@link WaitingUniBean}, one call a second for the whole application, waiting up to 3 s), called from a non-blocking
 * resource method on the event loop ({@link WaitingUniResource}). Two requests at once: one goes at once, the other
 * waits for the next permit, about a second, and meanwhile its event loop runs other work (a task submitted to every
 * event loop runs at once, another non-blocking endpoint answers); then the bean's method runs on the request's own
 * Vert.x context, on the event loop thread that called it (a Vert.x timer, not a sleeping thread).
 */
@QuarkusTest
class WaitingUniOnTheEventLoopTest {

    /** How late a task submitted to an event loop may run while a call waits there: at once, not after the wait. */
    private static final long FREE_WITHIN_MILLIS = 200;
    private static final int ATTEMPTS = 3;

    @Inject
    Vertx vertx;

    @TestHTTPResource("/quarkus-test/waiting-uni")
    URI waitingUni;

    @TestHTTPResource("/quarkus-test/async-bean/ping")
    URI ping;

    @Test
    void aUniWaitingForItsPermitLeavesTheEventLoopFreeAndResumesOnItsContext() throws Exception {
        List<String> unjudged = new ArrayList<>();
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            String why = attempt();
            if (why == null) {
                return;
            }
            unjudged.add("attempt " + attempt + ": " + why);
            // the next attempt starts with the application's permit back (a window of a second)
            Thread.sleep(1_100);
        }
        fail("in %d attempts the wait could never be observed: %s", ATTEMPTS, unjudged);
    }

    /** One attempt: null when judged (and passed), else why it could not be. */
    private String attempt() throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        long sent = System.nanoTime();
        List<CompletableFuture<HttpResponse<String>>> calls = List.of(
                client.sendAsync(request(waitingUni, "waiting-" + UUID.randomUUID()), HttpResponse.BodyHandlers.ofString()),
                client.sendAsync(request(waitingUni, "waiting-" + UUID.randomUUID()), HttpResponse.BodyHandlers.ofString()));
        // One of the two has its permit at once; the other's comes a window later (at least 875 ms: the window
        // slides in eighths). Wait for the first answer, then probe the event loops while the second waits.
        CompletableFuture.anyOf(calls.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);

        long pingSent = System.nanoTime();
        HttpResponse<String> pong = client.send(request(ping, "ping-" + UUID.randomUUID()), HttpResponse.BodyHandlers.ofString());
        long pingMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pingSent);
        Map<String, Long> lagMillis = EventLoops.lagMillis(vertx);
        boolean stillWaiting = calls.stream().anyMatch(call -> !call.isDone());

        List<HttpResponse<String>> answers = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> call : calls) {
            answers.add(call.get(10, TimeUnit.SECONDS));
        }
        for (HttpResponse<String> answer : answers) {
            assertThat(answer.statusCode()).as("%s", answer.body()).isEqualTo(200);
            // the bean's method ran on an event loop, the very thread and Vert.x context of the request that called it
            assertThat(answer.body()).as("the bean method's thread").contains("eventloop");
            assertThat(answer.headers().firstValue("X-Called-On")).as("the resource method's thread").hasValue(answer.body());
            assertThat(answer.headers().firstValue("X-Same-Context")).as("ran on the request's own context").hasValue("true");
        }
        HttpResponse<String> waited = answers.stream()
                .max((a, b) -> Long.compare(ranAfter(a), ranAfter(b))).orElseThrow();
        if (ranAfter(waited) < 500) {
            return "neither call waited (the server saw them a window apart): " + ranAfter(waited) + " ms";
        }
        if (!stillWaiting) {
            return "the probes took until the waiting call had gone (ping " + pingMillis + " ms, lags " + lagMillis + ")";
        }
        // While it waited, its event loop (every event loop) ran other work at once, and a ping was answered.
        assertThat(pong.statusCode()).isEqualTo(200);
        assertThat(pong.body()).as("the ping ran on an event loop").contains("eventloop");
        assertThat(lagMillis).as("tasks submitted to the event loops while a call waited").containsKey(waited.body())
                .allSatisfy((loop, lag) -> assertThat(lag).as(loop).isLessThan(FREE_WITHIN_MILLIS));
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent)).as("the whole attempt").isLessThan(10_000);
        return null;
    }

    private static long ranAfter(HttpResponse<String> answer) {
        return Long.parseLong(answer.headers().firstValue("X-Ran-After-Millis").orElseThrow());
    }
}
