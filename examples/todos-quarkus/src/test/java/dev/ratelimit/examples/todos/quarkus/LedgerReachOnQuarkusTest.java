package dev.ratelimit.examples.todos.quarkus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.cdi.RateLimitRuntime;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How a request's ledger reaches the interceptor on Quarkus, where the request may change threads between its
 * filters and its method, and the ledger is read back from Quarkus REST's current request: a limited bean called
 * from any kind of resource method joins that request (one decision per limit, both in its headers), and concurrent
 * requests each see only their own ledger. Run with the extension (here: the request's routing context) and without
 * it ({@code todos-quarkus-plain}: the library keeps the ledger as a property of the Quarkus REST request); the
 * surefire configuration of each says which ({@code todos.expectedLedgers}).
 */
@QuarkusTest
class LedgerReachOnQuarkusTest {

    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    @TestHTTPResource("/")
    URI base;

    @Inject
    RateLimitRuntime runtime;

    @Test
    void aBeanCalledFromAnyKindOfResourceMethodJoinsTheRequest() throws Exception {
        for (String kind : new String[] {"blocking", "stage", "uni"}) {
            HttpResponse<String> response = get(kind, "reach-" + kind + "-" + UUID.randomUUID());
            assertThat(response.statusCode()).as(kind).isEqualTo(200);
            assertThat(response.body()).as(kind).isEqualTo("found");
            // both limits of the one request, in order, each spent once: joined, not decided apart
            assertThat(stateOf(response)).as(kind).containsSubsequence("\"reach-outer\";r=8;t=60", "\"reach-lookup\";r=4;t=60");
        }
        // read back from the request, not from a request-scoped bean made for it
        assertThat(runtime.ledgers()).hasToString(System.getProperty("todos.expectedLedgers"));
    }

    @Test
    void concurrentRequestsEachSeeOnlyTheirOwnLedger() throws Exception {
        int callers = 64;
        String run = UUID.randomUUID().toString();
        ExecutorService clients = Executors.newFixedThreadPool(16);
        try {
            List<Future<HttpResponse<String>>> answers = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                String key = "reach-concurrent-" + run + "-" + i;
                // two requests per caller, so the second one's counts show whether the first was its own
                answers.add(clients.submit(() -> {
                    get("blocking", key);
                    return get("blocking", key);
                }));
            }
            for (Future<HttpResponse<String>> answer : answers) {
                HttpResponse<String> response = answer.get(60, TimeUnit.SECONDS);
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(stateOf(response)).containsSubsequence("\"reach-outer\";r=7;t=60", "\"reach-lookup\";r=3;t=60");
            }
        } finally {
            clients.shutdownNow();
        }
    }

    /** The items of the {@code RateLimit} header (a global limit, when the suite configures one, comes first). */
    private static List<String> stateOf(HttpResponse<String> response) {
        return List.of(response.headers().firstValue("RateLimit").orElse("").split(", "));
    }

    private HttpResponse<String> get(String kind, String key) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(base.resolve("quarkus-test/reach/" + kind))
                .header("X-Api-Key", key).GET().build();
        return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
