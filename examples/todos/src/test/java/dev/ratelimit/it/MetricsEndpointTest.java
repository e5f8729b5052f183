package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.examples.todos.TodosServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Metrics on the embedded example: {@code GET /metrics} serves the rate-limit metrics in the Prometheus
 * text format, from a server of its own (so the first test reads the counters from zero); no limit covers the
 * endpoint, and no key, principal or path ever becomes a label.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MetricsEndpointTest {

    private static final Pattern LABEL = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static TodosServer server;
    private static HttpClient client;

    @BeforeAll
    static void start() {
        server = TodosServer.start(0);
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    @Order(1)
    void aRefusalShowsAsTheSpecificationWritesIt() throws Exception {
        String key = "metrics-" + UUID.randomUUID();
        for (int i = 0; i < 3; i++) {
            assertThat(send(get("/todos").header("X-Api-Key", key)).statusCode()).isEqualTo(200);
        }
        assertThat(send(get("/todos").header("X-Api-Key", key)).statusCode()).isEqualTo(429);

        HttpResponse<String> metrics = send(get("/metrics"));

        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
        assertThat(metrics.body().lines()).contains(
                "ratelimit_requests_total{ratelimit_outcome=\"refused\",ratelimit_plan=\"none\",ratelimit_policy=\"default\"} 1",
                "ratelimit_requests_total{ratelimit_outcome=\"allowed\",ratelimit_plan=\"none\",ratelimit_policy=\"default\"} 3",
                "ratelimit_requests_total{ratelimit_outcome=\"shadow_refused\",ratelimit_plan=\"gold\",ratelimit_policy=\"default\"} 0",
                "ratelimit_store_duration_seconds_count{ratelimit_outcome=\"decided\",ratelimit_store=\"in-process\"} 4",
                "ratelimit_counts_max 10000",
                "# TYPE ratelimit_requests_total counter",
                "# TYPE ratelimit_store_duration_seconds histogram",
                "# TYPE ratelimit_counts gauge");
        assertThat(MetricsScrape.parse(metrics.body()).value("ratelimit_counts")).isGreaterThanOrEqualTo(1);
    }

    @Test
    @Order(2)
    void noKeyPrincipalOrPathEverBecomesALabel() throws Exception {
        // three shares at once: the partner takes two a second, so one waits (ratelimit_wait, by limit)
        List<HttpResponse<String>> shares = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> share : List.of(share(), share(), share())) {
            shares.add(share.get(30, TimeUnit.SECONDS));
        }
        assertThat(shares).as("the shares went, one of them after its wait").allSatisfy(
                share -> assertThat(share.statusCode()).as("%s", share.body()).isEqualTo(204));
        MetricsScrape before = MetricsScrape.of(server.baseUri());
        Set<String> sent = new HashSet<>();
        for (int i = 0; i < 120; i++) {
            String key = "key-" + i + "-" + UUID.randomUUID();
            String name = "user-" + i + "-" + UUID.randomUUID();
            String path = switch (i % 4) {
                case 0 -> "/todos";
                case 1 -> "/todos/" + (1_000_000 + i); // a 404 from the method: the module limit spent
                case 2 -> "/todos/export";
                default -> "/todos?page=" + i;
            };
            HttpRequest.Builder request = get(path);
            switch (i % 3) {
                case 0 -> request.header("X-Api-Key", key);
                case 1 -> request.header("Authorization", "Bearer " + name);
                default -> request.header("Authorization", "Bearer " + name + ":gold");
            }
            sent.addAll(List.of(key, name, path, path.replace("?", "")));
            send(request);
        }
        send(HttpRequest.newBuilder(server.baseUri().resolve("/todos/1")).DELETE()
                .header("Authorization", "Bearer deleter-" + UUID.randomUUID()));

        MetricsScrape after = MetricsScrape.of(server.baseUri());

        Map<String, Set<String>> labelsByName = new TreeMap<>();
        Map<String, Set<String>> valuesByLabel = new TreeMap<>();
        after.startingWith("ratelimit_").keySet().forEach(series -> {
            int brace = series.indexOf('{');
            String name = brace < 0 ? series : series.substring(0, brace);
            Set<String> labels = labelsByName.computeIfAbsent(name, n -> new TreeSet<>());
            Matcher label = LABEL.matcher(brace < 0 ? "" : series.substring(brace));
            while (label.find()) {
                labels.add(label.group(1));
                valuesByLabel.computeIfAbsent(label.group(1), n -> new TreeSet<>()).add(label.group(2));
                assertThat(sent).as("label of %s", series).doesNotContain(label.group(2));
            }
        });
        assertThat(after.startingWith("ratelimit_").keySet()).as("every series was there before any request")
                .isEqualTo(before.startingWith("ratelimit_").keySet());
        // how long calls waited for their permits, by limit: for the limits that may wait, once bound (the
        // partner's, since the shares above)
        Map<String, Set<String>> waits = Map.of(
                "ratelimit_wait_seconds_bucket", Set.of("ratelimit_policy", "le"),
                "ratelimit_wait_seconds_count", Set.of("ratelimit_policy"),
                "ratelimit_wait_seconds_sum", Set.of("ratelimit_policy"),
                "ratelimit_wait_seconds_max", Set.of("ratelimit_policy"));
        waits.forEach((name, labels) -> assertThat(labelsByName.get(name)).as("the labels of %s", name).isEqualTo(labels));
        assertThat(after.startingWith("ratelimit_wait_seconds_count").keySet()).as("a wait series per limit that may wait")
                .containsExactly("ratelimit_wait_seconds_count{ratelimit_policy=\"partner\"}");
        assertThat(before.value("ratelimit_wait_seconds_count{ratelimit_policy=\"partner\"}"))
                .as("the share that waited its turn").isGreaterThanOrEqualTo(1);
        labelsByName.keySet().removeAll(waits.keySet());
        assertThat(labelsByName).containsOnly(
                Map.entry("ratelimit_requests_total", Set.of("ratelimit_outcome", "ratelimit_plan", "ratelimit_policy")),
                Map.entry("ratelimit_store_duration_seconds_bucket", Set.of("ratelimit_outcome", "ratelimit_store", "le")),
                Map.entry("ratelimit_store_duration_seconds_count", Set.of("ratelimit_outcome", "ratelimit_store")),
                Map.entry("ratelimit_store_duration_seconds_sum", Set.of("ratelimit_outcome", "ratelimit_store")),
                Map.entry("ratelimit_store_duration_seconds_max", Set.of("ratelimit_outcome", "ratelimit_store")),
                Map.entry("ratelimit_counts", Set.of()),
                Map.entry("ratelimit_counts_max", Set.of()),
                Map.entry("ratelimit_requests_near_limit_total", Set.of("ratelimit_plan", "ratelimit_policy")),
                Map.entry("ratelimit_store_breaker_open", Set.of("ratelimit_store")));
        assertThat(valuesByLabel.get("ratelimit_policy")).containsExactlyInAnyOrder(
                "default", "module", "burst", "hourly", "delete", "export", "reports", "inbox", "partner",
                "login-address", "login-account");
        assertThat(valuesByLabel.get("ratelimit_outcome")).containsExactlyInAnyOrder(
                "allowed", "refused", "shadow_refused", "uncounted", "failed", "decided", "timeout");
        assertThat(valuesByLabel.get("ratelimit_plan")).containsExactlyInAnyOrder("none", "gold");
        assertThat(valuesByLabel.get("ratelimit_store")).containsExactly("in-process");
        assertThat(after.requests("module", "allowed", "none") - before.requests("module", "allowed", "none"))
                .as("every request but the DELETE (its own limit only) and gold exports spent the module limit")
                .isPositive();
    }

    @Test
    void noLimitCoversTheEndpointAndScrapingCountsNothing() throws Exception {
        MetricsScrape before = MetricsScrape.of(server.baseUri());
        for (int i = 0; i < 120; i++) {
            HttpResponse<String> response = send(get("/metrics"));
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().map().keySet()).noneSatisfy(
                    name -> assertThat(name.toLowerCase(java.util.Locale.ROOT)).startsWith("ratelimit"));
        }
        MetricsScrape after = MetricsScrape.of(server.baseUri());

        assertThat(after.startingWith("ratelimit_requests_total")).isEqualTo(before.startingWith("ratelimit_requests_total"));
    }

    @Test
    void headAnswersWithoutABodyAndOtherMethodsAndPathsAreRefused() throws Exception {
        HttpResponse<String> head = send(HttpRequest.newBuilder(server.baseUri().resolve("/metrics"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()));
        HttpResponse<String> post = send(HttpRequest.newBuilder(server.baseUri().resolve("/metrics"))
                .POST(HttpRequest.BodyPublishers.ofString("x")));
        HttpResponse<String> below = send(get("/metrics/ratelimit_requests_total"));
        HttpResponse<String> slash = send(get("/metrics/"));

        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");
        assertThat(below.statusCode()).isEqualTo(404);
        assertThat(slash.statusCode()).isEqualTo(200);
    }

    @Test
    void aScraperAskingForOpenMetricsGetsIt() throws Exception {
        HttpResponse<String> response = send(get("/metrics")
                .header("Accept", "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/openmetrics-text; version=1.0.0"));
        assertThat(response.body()).contains("# TYPE ratelimit_requests counter").endsWith("# EOF\n");
    }

    @Test
    void theOpenApiDocumentDoesNotDescribeTheEndpoint() throws Exception {
        HttpResponse<String> document = send(get("/openapi?format=json"));

        assertThat(document.statusCode()).isEqualTo(200);
        assertThat(document.body()).contains("\"/todos\"").doesNotContain("/metrics");
    }

    private static CompletableFuture<HttpResponse<String>> share() {
        HttpRequest request = HttpRequest.newBuilder(URI.create(server.baseUri() + "todos/1/share"))
                .header("X-Api-Key", "share-" + UUID.randomUUID()).POST(HttpRequest.BodyPublishers.noBody()).build();
        return client.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest.Builder get(String path) {
        return HttpRequest.newBuilder(URI.create(server.baseUri().toString().replaceAll("/$", "") + path)).GET();
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
