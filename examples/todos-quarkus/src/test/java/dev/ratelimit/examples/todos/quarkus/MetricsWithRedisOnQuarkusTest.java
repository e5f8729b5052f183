package dev.ratelimit.examples.todos.quarkus;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * The rate-limit metrics on Quarkus, read from {@code /q/metrics} (quarkus-micrometer-registry-prometheus) while the
 * example counts in a real Redis, with the limit {@code export} in shadow mode and
 * {@code ratelimit.store.on-failure=allow}: a shadow refusal moves {@code shadow_refused} by exactly one, and while
 * Redis does not answer every request is let through and counted {@code failed}, never {@code allowed}. (The black-box
 * {@code MetricsTest} checks allowed and refused against the example as shipped; these two need a configuration of
 * their own.)
 */
@QuarkusTest
@TestProfile(MetricsWithRedisOnQuarkusTest.ShadowAndAllow.class)
class MetricsWithRedisOnQuarkusTest {

    public static class ShadowAndAllow implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "quarkus.arc.exclude-types", PendingDecisionStore.class.getName(),
                    "ratelimit.limits.export.mode", "shadow",
                    "ratelimit.store.on-failure", "allow",
                    "ratelimit.store.timeout-millis", "1000");
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(RedisTestResource.class));
        }
    }

    private static final Pattern SAMPLE = Pattern.compile("^ratelimit_requests_total\\{([^}]*)}\\s+(\\S+)", Pattern.MULTILINE);
    private static final Pattern LABEL = Pattern.compile("([a-z_]+)=\"([^\"]*)\"");
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @ConfigProperty(name = "ratelimit.redis.uri")
    String redisUri;

    @TestHTTPResource("/")
    URI root;

    @Test
    void aShadowRefusalMovesShadowRefusedByExactlyOneAndRefusesNothing() throws Exception {
        String key = "shadow-" + UUID.randomUUID();
        Map<String, Double> before = requests();

        HttpResponse<String> first = get("todos/export", key);
        HttpResponse<String> second = get("todos/export", key);

        Map<String, Double> after = requests();
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(second.statusCode()).as("export (1 per 10 s) is in shadow mode: it never refuses").isEqualTo(200);
        assertThat(second.headers().firstValue("RateLimit-Policy").orElse("")).doesNotContain("export");
        assertThat(delta(before, after, "export", "shadow_refused")).isEqualTo(1);
        assertThat(delta(before, after, "export", "allowed")).isEqualTo(1);
        assertThat(delta(before, after, "export", "refused")).isZero();
    }

    @Test
    void whileRedisDoesNotAnswerEveryRequestIsLetThroughAndCountedFailed() throws Exception {
        int requests = 3;
        get("todos/1", "warm-up-" + UUID.randomUUID()); // the connection to Redis is up
        Map<String, Double> before = requests();
        Map<String, Double> after;
        // from here until the pause is closed Redis answers no decision (it holds them): no guess of when it begins
        try (FrozenRedis.Pause pause = new FrozenRedis(redisUri).pauseWrites()) {
            for (int i = 0; i < requests; i++) {
                HttpResponse<String> response = get("todos/1", "outage-" + UUID.randomUUID());
                assertThat(response.statusCode()).as("on-failure=allow lets request %d through", i).isEqualTo(200);
            }
            after = requests();
        }

        assertThat(delta(before, after, "module", "failed")).isEqualTo(requests);
        assertThat(delta(before, after, "module", "allowed")).as("the store decided nothing").isZero();
        assertThat(delta(before, after, "module", "uncounted")).as("counted once, as failed").isZero();
    }

    /**
     * The dashboard and the alerting rules of docs/operations, proven against a real Prometheus scraping the embedded
     * example, serve Quarkus too: every metric name they query is in {@code /q/metrics}, with every label they group
     * or filter by. (The in-process store's gauges, {@code ratelimit_counts} and {@code ratelimit_counts_max}, are
     * not there: this example counts in Redis.)
     */
    @Test
    void everyNameTheDashboardAndTheAlertsQueryIsInQuarkusMetricsWithItsLabels() throws Exception {
        get("todos/1", "names-" + UUID.randomUUID());
        CLIENT.send(HttpRequest.newBuilder(root.resolve("todos/1/share")).POST(HttpRequest.BodyPublishers.noBody())
                .header("X-Api-Key", "names-" + UUID.randomUUID()).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()); // binds the partner's limit, which may wait: ratelimit_wait
        HttpResponse<String> scrape = CLIENT.send(HttpRequest.newBuilder(root.resolve("q/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        Map<String, Set<String>> exported = new TreeMap<>();
        Matcher sample = Pattern.compile("^(ratelimit_[a-z_]+)(?:\\{([^}]*)})?\\s", Pattern.MULTILINE).matcher(scrape.body());
        while (sample.find()) {
            Set<String> labels = exported.computeIfAbsent(sample.group(1), n -> new TreeSet<>());
            Matcher label = LABEL.matcher(sample.group(2) == null ? "" : sample.group(2));
            while (label.find()) {
                labels.add(label.group(1));
            }
        }
        java.nio.file.Path operations = Path.of("..", "..", "docs", "operations");
        String queries = Files.readString(operations.resolve("grafana-dashboard.json"))
                + Files.readString(operations.resolve("alerts.yml"));
        Map<String, Set<String>> queried = new TreeMap<>();
        Matcher selector = Pattern.compile("\\b(ratelimit_[a-z_]+)(\\{[^}]*})?").matcher(queries);
        while (selector.find()) {
            Set<String> labels = queried.computeIfAbsent(selector.group(1), n -> new TreeSet<>());
            Matcher label = Pattern.compile("([a-z_]+)=~?\\\\?\"").matcher(selector.group(2) == null ? "" : selector.group(2));
            while (label.find()) {
                labels.add(label.group(1));
            }
        }
        queried.keySet().removeIf(name -> !name.endsWith("_total") && !name.endsWith("_bucket")
                && !name.endsWith("_count") && !name.startsWith("ratelimit_store_breaker") && !name.startsWith("ratelimit_counts"));
        Matcher grouped = Pattern.compile("by \\(([a-z_, ]+)\\)").matcher(queries);
        Set<String> groupedBy = new TreeSet<>();
        while (grouped.find()) {
            for (String label : grouped.group(1).split(",\\s*")) {
                groupedBy.add(label.strip());
            }
        }
        groupedBy.remove("instance"); // Prometheus' own label

        Set<String> inProcessOnly = Set.of("ratelimit_counts", "ratelimit_counts_max");
        assertThat(queried.keySet()).as("the names the dashboard and the alerts query").contains(
                "ratelimit_requests_total", "ratelimit_requests_near_limit_total", "ratelimit_requests_refused_at_home_total",
                "ratelimit_store_duration_seconds_bucket", "ratelimit_store_duration_seconds_count",
                "ratelimit_store_breaker_open", "ratelimit_wait_seconds_bucket", "ratelimit_counts", "ratelimit_counts_max");
        queried.forEach((name, labels) -> {
            if (!inProcessOnly.contains(name)) {
                assertThat(exported).as("/q/metrics:%n%s", scrape.body()).containsKey(name);
                assertThat(exported.get(name)).as("the labels of %s", name).containsAll(labels);
            }
        });
        Set<String> labelsExported = new TreeSet<>();
        exported.values().forEach(labelsExported::addAll);
        assertThat(labelsExported).as("every label the queries group by").containsAll(groupedBy);
    }

    /** {@code ratelimit_requests_total} by "policy/outcome/plan". */
    private Map<String, Double> requests() throws Exception {
        HttpResponse<String> scrape = CLIENT.send(HttpRequest.newBuilder(root.resolve("q/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(scrape.statusCode()).isEqualTo(200);
        Map<String, Double> series = new HashMap<>();
        Matcher sample = SAMPLE.matcher(scrape.body());
        while (sample.find()) {
            Map<String, String> labels = new HashMap<>();
            Matcher label = LABEL.matcher(sample.group(1));
            while (label.find()) {
                labels.put(label.group(1), label.group(2));
            }
            series.put(labels.get("ratelimit_policy") + "/" + labels.get("ratelimit_outcome") + "/"
                    + labels.get("ratelimit_plan"), Double.parseDouble(sample.group(2)));
        }
        assertThat(series).as("the scrape has ratelimit_requests_total").isNotEmpty();
        return series;
    }

    private static double delta(Map<String, Double> before, Map<String, Double> after, String policy, String outcome) {
        String series = policy + "/" + outcome + "/none";
        return after.getOrDefault(series, 0.0) - before.getOrDefault(series, 0.0);
    }

    private HttpResponse<String> get(String path, String key) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(root.resolve(path)).header("X-Api-Key", key)
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
