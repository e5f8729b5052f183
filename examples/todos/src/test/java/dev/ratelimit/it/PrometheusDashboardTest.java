package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratelimit.examples.todos.TodosServer;
import dev.ratelimit.redis.testing.RedisServerExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard (docs/operations/grafana-dashboard.json) and the alerting rules (docs/operations/alerts.yml) against a
 * real Prometheus (Debian's {@code prometheus}, on a free loopback port) scraping the embedded example every second:
 * one instance counting in a real Redis (the limit {@code export} in shadow mode, {@code on-failure=allow}), and one
 * in its own JVM counting in process with a table of
 * 10 counts. The test drives traffic that allows, refuses (and has
 * refusals answered at home), comes near a limit, shadow-refuses, is decided at home from slices (the limit {@code inbox}), waits for a partner's permits, and fills the small
 * table; then it stops Redis for a moment.
 *
 * <p>Prometheus evaluates the rules every second, as written but for their durations: each {@code for:} is 1 s and
 * each range ({@code [2m]}, {@code [5m]}, {@code [15m]}) is 20 s, so that an alert fires and resolves within the
 * test; the dashboard's {@code $__rate_interval} is 5 m and {@code $__range} 1 h. Each alert fires, and its expression
 * returns series with the labels its annotations use; the store-failing alert fires during the outage and resolves
 * after it; every panel's query returns data with the labels its legend names.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PrometheusDashboardTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    /** A timeout generous for two busy cores: the outage is the test's own, not a slow first call. */
    private static final Map<String, String> CONFIG = Map.of(
            "ratelimit.limits.export.mode", "shadow",
            "ratelimit.limits.inbox.slices", "true",
            "ratelimit.store.on-failure", "allow",
            "ratelimit.store.timeout-millis", "2000");
    private static final Duration DEADLINE = Duration.ofSeconds(90);
    private static final Pattern LEGEND_LABEL = Pattern.compile("\\{\\{\\s*([a-z_]+)\\s*}}");
    private static final Pattern ANNOTATION_LABEL = Pattern.compile("\\$labels\\.([a-z_]+)");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    static Path folder;
    private static TodosServer redisBacked;
    private static ExampleProcess inProcess;
    private static Process prometheus;
    private static URI api;

    @BeforeAll
    static void start() throws Exception {
        ExampleProcess launched = ExampleProcess.launch(List.of("-Dratelimit.max-tracked-partitions=10"), Map.of());
        inProcess = launched;
        CONFIG.forEach(System::setProperty);
        System.setProperty("ratelimit.redis.uri", REDIS.uri());
        try {
            redisBacked = TodosServer.start(0);
        } finally {
            CONFIG.keySet().forEach(System::clearProperty);
            System.clearProperty("ratelimit.redis.uri");
        }
        URI other = launched.awaitListening(ExampleProcess.START);
        // a first request to each, before Prometheus looks: connections made, classes loaded
        send(get(redisBacked.baseUri(), "/todos/1", "warm-up"));
        // the partner's call site binds on its first call, and its wait histogram with it: a series Prometheus then
        // sees from its first scrape, so that the waits to come are an increase (a rate), not where it started
        send(HttpRequest.newBuilder(redisBacked.baseUri().resolve("/todos/1/share")).POST(HttpRequest.BodyPublishers.noBody())
                .header("X-Api-Key", "warm-up"));
        send(get(other, "/todos/1", "warm-up"));
        startPrometheus(redisBacked.baseUri(), other);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (prometheus != null) {
            prometheus.destroy();
            if (!prometheus.waitFor(10, TimeUnit.SECONDS)) {
                prometheus.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        if (redisBacked != null) {
            redisBacked.close();
        }
        if (inProcess != null) {
            inProcess.close();
        }
    }

    @Test
    @Order(1)
    void everyAlertButTheStoresFiresOnTrafficWithTheLabelsItsAnnotationsUse() throws Exception {
        traffic();

        Map<String, Map<String, String>> fired = new LinkedHashMap<>();
        Set<String> expected = Set.of("RateLimitRefusalRatioJump", "RateLimitShadowWouldRefuse", "RateLimitTableNearFull");
        await(() -> {
            for (String alert : alertNames("firing")) {
                if (expected.contains(alert) && !fired.containsKey(alert)) {
                    // while it fires: its expression returns the series its annotations describe
                    assertReturnsDataWithLabels("alert " + alert, rules().get(alert), annotationLabels(alert));
                    fired.put(alert, alertLabels(alert));
                }
            }
            return fired.keySet().containsAll(expected);
        }, "every alert of " + expected + " to fire (fired: " + fired.keySet() + ")");

        assertThat(fired.get("RateLimitRefusalRatioJump")).contains(Map.entry("ratelimit_policy", "default"));
        assertThat(fired.get("RateLimitShadowWouldRefuse")).contains(Map.entry("ratelimit_policy", "export"));
        assertThat(fired.get("RateLimitTableNearFull")).as("the in-process instance")
                .contains(Map.entry("instance", inProcess.base().getHost() + ":" + inProcess.base().getPort()));
        assertThat(alertNames("firing")).as("Redis answers").doesNotContain("RateLimitStoreFailing");
    }

    @Test
    @Order(2)
    void theStoreFailingAlertFiresDuringAnOutageAndResolvesAfterIt() throws Exception {
        REDIS.stop();
        try {
            for (int i = 0; i < 5; i++) {
                assertThat(send(get(redisBacked.baseUri(), "/todos/1", "outage-" + UUID.randomUUID())).statusCode())
                        .as("on-failure=allow lets it through").isEqualTo(200);
            }
            awaitAlert("RateLimitStoreFailing", "firing");
            assertThat(alertLabels("RateLimitStoreFailing")).contains(Map.entry("ratelimit_store", "redis"));
            assertReturnsDataWithLabels("alert RateLimitStoreFailing", rules().get("RateLimitStoreFailing"),
                    annotationLabels("RateLimitStoreFailing"));
            assertReturnsDataWithLabels("breaker", "max by (ratelimit_store) (ratelimit_store_breaker_open{ratelimit_store=\"redis\"}) == 1",
                    Set.of("ratelimit_store"));
        } finally {
            REDIS.start();
        }
        // the breaker closes when a call finds Redis again (a probe per ratelimit.store.retry-millis): calls keep coming
        awaitWhileSending(() -> !alertNames("firing").contains("RateLimitStoreFailing")
                && !alertNames("pending").contains("RateLimitStoreFailing"), "RateLimitStoreFailing to resolve");
        assertThat(query("max by (ratelimit_store) (ratelimit_store_breaker_open{ratelimit_store=\"redis\"})"))
                .as("the breaker closed").allSatisfy(series -> assertThat(series.value()).isZero());
    }

    @Test
    @Order(3)
    void everyPanelQueryReturnsDataWithTheLabelsItsLegendNames() throws Exception {
        JsonNode dashboard = JSON.readTree(PrometheusTools.DASHBOARD.toFile());
        List<String> checked = new ArrayList<>();
        for (JsonNode panel : dashboard.get("panels")) {
            for (JsonNode target : panel.get("targets")) {
                String expr = target.get("expr").asText().replace("$__rate_interval", "5m").replace("$__range", "1h");
                Set<String> labels = new TreeSet<>();
                Matcher label = LEGEND_LABEL.matcher(target.get("legendFormat").asText());
                while (label.find()) {
                    labels.add(label.group(1));
                }
                assertReturnsDataWithLabels("panel \"" + panel.get("title").asText() + "\"", expr, labels);
                checked.add(panel.get("title").asText());
            }
        }
        assertThat(checked).as("the panels checked").contains("Refusals per limit", "Refusal ratio per limit",
                "Top refused limits", "Near the limit per limit", "Shadow limits that would refuse",
                "Store latency p50 / p99", "Store failures and timeouts", "Store breaker", "Table fill", "Waits p99",
                "Share decided at home");
    }

    // ---------------------------------------------------------------- traffic

    /**
     * On the Redis-backed instance: the limit {@code default} (3 a minute) allowed three times, the last leaving none
     * (near the limit), then refused three times (the last two answered at home); the shadow limit {@code export}
     * (1 per 10 s) would refuse; six shares at once, so that some wait for the partner's permits (2 a second). On the
     * in-process instance: twenty callers find no room in its table of ten counts, and are let through uncounted.
     */
    private static void traffic() throws Exception {
        URI base = redisBacked.baseUri();
        String caller = "dashboard-" + UUID.randomUUID();
        for (int i = 0; i < 3; i++) {
            assertThat(send(get(base, "/todos", caller)).statusCode()).isEqualTo(200);
        }
        for (int i = 0; i < 3; i++) {
            assertThat(send(get(base, "/todos", caller)).statusCode()).isEqualTo(429);
        }
        String exporter = "export-" + UUID.randomUUID();
        assertThat(send(get(base, "/todos/export", exporter)).statusCode()).isEqualTo(200);
        assertThat(send(get(base, "/todos/export", exporter)).statusCode()).as("shadow mode refuses nothing").isEqualTo(200);
        // until one has waited: shares sent at once may still fall into two of the partner's windows on a busy machine
        String waits = "ratelimit_wait_seconds_count{ratelimit_policy=\"partner\"}";
        double before = MetricsScrape.of(base).value(waits);
        for (int batch = 0; batch < 5 && MetricsScrape.of(base).value(waits) == before; batch++) {
            List<CompletableFuture<HttpResponse<String>>> shares = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                shares.add(CLIENT.sendAsync(HttpRequest.newBuilder(base.resolve("/todos/1/share"))
                        .POST(HttpRequest.BodyPublishers.noBody()).header("X-Api-Key", "sharer-" + i)
                        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString()));
            }
            for (CompletableFuture<HttpResponse<String>> share : shares) {
                HttpResponse<String> shared = share.get(30, TimeUnit.SECONDS);
                assertThat(shared.statusCode()).as(shared.body()).isIn(204, 429);
            }
        }
        assertThat(MetricsScrape.of(base).value(waits)).as("shares that waited for the partner's permits").isGreaterThan(before);
        // the sliced limit inbox (600 a minute for the application): busy enough for slices, decided at home from them
        String atHome = "ratelimit_slices_requests_total{ratelimit_decided=\"home\",ratelimit_policy=\"inbox\"}";
        for (int i = 0; i < 500 && MetricsScrape.of(base).value(atHome) == 0; i++) {
            for (int j = 0; j < 10; j++) {
                assertThat(send(HttpRequest.newBuilder(base.resolve("/partner/inbox")).header("X-Api-Key", "inbox")
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"id\": 1, \"title\": \"slice\", \"done\": false}")))
                        .statusCode()).as("inbox").isEqualTo(204);
            }
        }
        assertThat(MetricsScrape.of(base).value(atHome)).as("requests of inbox decided at home from a slice").isPositive();
        for (int i = 0; i < 20; i++) {
            send(get(inProcess.base(), "/todos", "filler-" + i + "-" + UUID.randomUUID()));
        }
    }

    // ---------------------------------------------------------------- Prometheus

    private static void startPrometheus(URI... targets) throws Exception {
        String rules = Files.readString(PrometheusTools.ALERTS, StandardCharsets.UTF_8)
                .replaceAll("(?m)^(\\s*for:) \\S+$", "$1 1s")
                .replaceAll("\\[\\d+m]", "[20s]");
        Files.writeString(folder.resolve("alerts.yml"), rules, StandardCharsets.UTF_8);
        StringBuilder config = new StringBuilder("""
                global:
                  scrape_interval: 1s
                  scrape_timeout: 1s
                  evaluation_interval: 1s
                rule_files: [alerts.yml]
                scrape_configs:
                """);
        int job = 0;
        for (URI target : targets) {
            config.append("  - job_name: todos-").append(job++).append('\n')
                    .append("    metrics_path: /metrics\n")
                    .append("    static_configs: [{targets: ['").append(target.getHost()).append(':')
                    .append(target.getPort()).append("']}]\n");
        }
        Files.writeString(folder.resolve("prometheus.yml"), config, StandardCharsets.UTF_8);
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        prometheus = new ProcessBuilder(PrometheusTools.command("prometheus",
                "--config.file=" + folder.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + folder.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port,
                "--log.level=warn"))
                .directory(folder.toFile()).redirectErrorStream(true)
                .redirectOutput(folder.resolve("prometheus.log").toFile()).start();
        api = URI.create("http://127.0.0.1:" + port + "/");
        await(() -> {
            try {
                return send(HttpRequest.newBuilder(api.resolve("-/ready"))).statusCode() == 200
                        && query("up == 1").size() == targets.length;
            } catch (IOException | UncheckedIOException e) {
                return false; // not listening yet
            }
        }, "Prometheus to be ready and scrape both instances");
    }

    /** One sample of an instant query's result: its labels and value. */
    record Series(Map<String, String> labels, double value) {
    }

    private static List<Series> query(String expr) {
        try {
            HttpResponse<String> response = send(HttpRequest.newBuilder(api.resolve("api/v1/query?query="
                    + URLEncoder.encode(expr, StandardCharsets.UTF_8))));
            JsonNode body = JSON.readTree(response.body());
            assertThat(body.path("status").asText()).as("%s: %s", expr, response.body()).isEqualTo("success");
            List<Series> result = new ArrayList<>();
            for (JsonNode sample : body.path("data").path("result")) {
                Map<String, String> labels = new LinkedHashMap<>();
                sample.path("metric").fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
                result.add(new Series(labels, Double.parseDouble(sample.path("value").get(1).asText())));
            }
            return result;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Waits until {@code expr} returns at least one finite sample, then checks that every sample has {@code labels}.
     */
    private static void assertReturnsDataWithLabels(String what, String expr, Set<String> labels) {
        await(() -> query(expr).stream().anyMatch(s -> Double.isFinite(s.value())), what + " to return data: " + expr);
        assertThat(query(expr)).as("%s: %s", what, expr).isNotEmpty()
                .allSatisfy(series -> assertThat(series.labels()).as("%s: %s", what, expr).containsKeys(labels.toArray(String[]::new)));
    }

    private static Set<String> alertNames(String state) {
        Set<String> names = new TreeSet<>();
        for (JsonNode alert : alerts()) {
            if (alert.path("state").asText().equals(state)) {
                names.add(alert.path("labels").path("alertname").asText());
            }
        }
        return names;
    }

    private static Map<String, String> alertLabels(String name) {
        for (JsonNode alert : alerts()) {
            if (alert.path("labels").path("alertname").asText().equals(name)) {
                Map<String, String> labels = new LinkedHashMap<>();
                alert.path("labels").fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
                return labels;
            }
        }
        throw new AssertionError(name + " is not among the alerts " + alerts());
    }

    private static JsonNode alerts() {
        try {
            HttpResponse<String> response = send(HttpRequest.newBuilder(api.resolve("api/v1/alerts")));
            return JSON.readTree(response.body()).path("data").path("alerts");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void awaitAlert(String name, String state) {
        await(() -> alertNames(state).contains(name), name + " to be " + state);
    }

    /** Each alert's expression, as Prometheus evaluates it (the rules it loaded). */
    private static Map<String, String> rules() {
        try {
            HttpResponse<String> response = send(HttpRequest.newBuilder(api.resolve("api/v1/rules?type=alert")));
            Map<String, String> rules = new LinkedHashMap<>();
            for (JsonNode group : JSON.readTree(response.body()).path("data").path("groups")) {
                for (JsonNode rule : group.path("rules")) {
                    rules.put(rule.path("name").asText(), rule.path("query").asText());
                }
            }
            return rules;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The labels an alert's annotations use ({@code $labels.x}), read from the rules file. */
    private static Set<String> annotationLabels(String alert) {
        String rules;
        try {
            rules = Files.readString(PrometheusTools.ALERTS, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int start = rules.indexOf("- alert: " + alert);
        int end = rules.indexOf("- alert: ", start + 1);
        Matcher label = ANNOTATION_LABEL.matcher(rules.substring(start, end < 0 ? rules.length() : end));
        Set<String> labels = new TreeSet<>();
        while (label.find()) {
            labels.add(label.group(1));
        }
        assertThat(labels).as("the labels the annotations of %s use", alert).isNotEmpty();
        return labels;
    }

    // ---------------------------------------------------------------- waiting, HTTP

    /** Polls {@code condition} until it holds, at most {@link #DEADLINE}; an assertion error naming {@code what}. */
    private static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("waited " + DEADLINE.toSeconds() + " s for " + what + "; alerts: " + alerts()
                        + "; Prometheus' log: " + log());
            }
            pause();
        }
    }

    /** As {@link #await}, sending a request to the Redis-backed instance between two looks. */
    private static void awaitWhileSending(BooleanSupplier condition, String what) {
        await(() -> {
            try {
                send(get(redisBacked.baseUri(), "/todos/1", "after-" + UUID.randomUUID()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return condition.getAsBoolean();
        }, what);
    }

    /** Prometheus scrapes and evaluates every second: a look every 250 ms. */
    private static void pause() {
        try {
            Thread.sleep(250);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String log() {
        try {
            return Files.readString(folder.resolve("prometheus.log"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    private static HttpRequest.Builder get(URI base, String path, String key) {
        return HttpRequest.newBuilder(base.resolve(path)).header("X-Api-Key", key);
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws IOException {
        try {
            return CLIENT.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
