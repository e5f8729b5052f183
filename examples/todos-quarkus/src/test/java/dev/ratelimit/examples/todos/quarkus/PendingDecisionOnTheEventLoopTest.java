package dev.ratelimit.examples.todos.quarkus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.examples.todos.quarkus.PendingDecisionStore.Observation;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Quarkus REST runs the filters of a non-blocking resource method on an I/O (event-loop) thread. With a
 * store that answers later (a remote one, such as Redis), the deciding filter must not wait there: it
 * suspends the request and resumes it when the answer arrives (regression: it used to block the event
 * loop on {@code CompletableFuture.get()}).
 *
 * <p>The proof, per request: {@link PendingDecisionStore} records that it was asked on an event-loop thread,
 * and that this very thread ran a probe task while the answer was still pending. A filter that waited for the answer
 * on the event loop would hold the probe until the answer (which the store gives only after the probe ran or gave up
 * after {@value PendingDecisionStore#PROBE_TIMEOUT_MILLIS} ms): the probe would not run, and the observation says so.
 * {@code %test.ratelimit.store.timeout-millis} (3 s, in application.properties) is longer than both, so that such a
 * filter fails on the probe, not on a timeout. How soon the probe ran is a time on two busy cores: judged on the best
 * of a test's requests, within {@value #MAX_PROBE_LAG_MILLIS} ms.
 */
@QuarkusTest
class PendingDecisionOnTheEventLoopTest {

    /** Far below the probe's give-up time; generous for two shared cores (on the best of a test's requests). */
    private static final long MAX_PROBE_LAG_MILLIS = 500;

    @TestHTTPResource("/quarkus-test/non-blocking")
    URI nonBlocking;

    @Test
    void pendingDecisionLeavesTheEventLoopFreeAndThenAllowsOrRefuses() throws Exception {
        String key = "slow-" + UUID.randomUUID();
        List<Long> lags = new ArrayList<>();
        HttpResponse<String> first = get(key);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).as("the method ran on the event loop").contains("eventloop");
        lags.add(assertEventLoopStayedFree(key));
        assertThat(first.headers().firstValue("RateLimit").orElse("")).contains("\"non-blocking\";r=1");

        assertThat(get(key).statusCode()).isEqualTo(200);
        lags.add(assertEventLoopStayedFree(key));
        HttpResponse<String> third = get(key);
        assertThat(third.statusCode()).isEqualTo(429);
        assertThat(third.body()).contains("\"violated-policies\":[\"non-blocking\"]");
        lags.add(assertEventLoopStayedFree(key));
        assertThat(lags.stream().mapToLong(Long::longValue).min().orElseThrow())
                .as("the probe's lag in the best of the requests, ms: %s", lags).isLessThan(MAX_PROBE_LAG_MILLIS);
    }

    @Test
    void failedPendingDecisionIsA500WithAnEmptyBody() throws Exception {
        List<Long> lags = new ArrayList<>();
        for (int attempt = 0; attempt < 3; attempt++) {
            String key = "slow-" + UUID.randomUUID() + "-fail";
            HttpResponse<String> failed = get(key);
            assertThat(failed.statusCode()).isEqualTo(500);
            assertThat(failed.body()).isEmpty();
            lags.add(assertEventLoopStayedFree(key));
            if (lags.get(lags.size() - 1) < MAX_PROBE_LAG_MILLIS) {
                return;
            }
        }
        assertThat(lags).as("the probe's lag, ms, in the best of three requests").anyMatch(lag -> lag < MAX_PROBE_LAG_MILLIS);
    }

    /**
     * What the store saw for the latest pending decision of {@code key}'s partition (each request overwrites it): the
     * probe ran on the asking event loop while the answer was pending (else it would not have run at all). Returns how
     * late it ran.
     */
    private static long assertEventLoopStayedFree(String key) {
        Observation seen = PendingDecisionStore.observed("X-Api-Key:" + key);
        assertThat(seen).as("the store decided %s later (its partition is X-Api-Key:%s)", key, key).isNotNull();
        assertThat(seen.onEventLoop()).as("the filter asked the store on an event-loop thread: %s", seen).isTrue();
        assertThat(seen.askingThread()).as("%s", seen).contains("eventloop");
        assertThat(seen.probeLagMillis()).as("the asking event loop ran a probe while the answer was pending: %s", seen)
                .isNotNegative();
        assertThat(seen.probeThread()).as("the probe ran on the event loop that asked: %s", seen)
                .isEqualTo(seen.askingThread());
        return seen.probeLagMillis();
    }

    private HttpResponse<String> get(String key) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(nonBlocking).header("X-Api-Key", key).GET().build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    }
}
