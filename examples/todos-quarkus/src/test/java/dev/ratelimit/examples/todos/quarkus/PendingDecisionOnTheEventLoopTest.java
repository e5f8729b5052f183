package dev.ratelimit.examples.todos.quarkus;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Quarkus REST runs the filters of a non-blocking resource method on an I/O (event-loop) thread. With a
 * store that answers later (a remote one, such as Redis), the deciding filter must not wait there: it
 * suspends the request and resumes it when the answer arrives (regression: it used to block the event
 * loop on {@code CompletableFuture.get()}).
 */
@QuarkusTest
class PendingDecisionOnTheEventLoopTest {

    @TestHTTPResource("/quarkus-test/non-blocking")
    URI nonBlocking;

    @Test
    void pendingDecisionLeavesTheEventLoopFreeAndThenAllowsOrRefuses() throws Exception {
        String key = "slow-" + UUID.randomUUID();
        HttpResponse<String> first = get(key);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).as("the method ran on the event loop").contains("eventloop");
        assertThat(PendingDecisionStore.askedOnEventLoop).as("the filter asked the store on the event loop").isTrue();
        assertThat(PendingDecisionStore.eventLoopStayedFree).as("the event loop ran other work while the answer was pending").isTrue();
        assertThat(first.headers().firstValue("RateLimit").orElse("")).contains("\"non-blocking\";r=1");

        assertThat(get(key).statusCode()).isEqualTo(200);
        HttpResponse<String> third = get(key);
        assertThat(third.statusCode()).isEqualTo(429);
        assertThat(third.body()).contains("\"violated-policies\":[\"non-blocking\"]");
        assertThat(PendingDecisionStore.eventLoopStayedFree).isTrue();
    }

    @Test
    void failedPendingDecisionIsA500WithAnEmptyBody() throws Exception {
        HttpResponse<String> failed = get("slow-" + UUID.randomUUID() + "-fail");
        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(failed.body()).isEmpty();
        assertThat(PendingDecisionStore.eventLoopStayedFree).isTrue();
    }

    private HttpResponse<String> get(String key) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(nonBlocking).header("X-Api-Key", key).GET().build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    }
}
