package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.examples.todos.TodosServer;
import dev.ratelimit.redis.testing.RedisServerExtension;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Shadow mode, the metrics and the failure policy seen through {@code GET /metrics} of the embedded example counting in
 * a real Redis ({@code ratelimit.redis.uri}), with the limit {@code export} in shadow mode and the failure policy
 * {@code allow}: a shadow refusal moves {@code shadow_refused} by exactly one, and while Redis is down every
 * request is let through and counted {@code failed}; the one store call that found Redis down is timed as failed or
 * timeout (the others went without calling it: ratelimit.store.retry-millis).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MetricsOnRedisTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final Map<String, String> CONFIG = Map.of(
            "ratelimit.limits.export.mode", "shadow",
            "ratelimit.store.on-failure", "allow");
    private static TodosServer server;
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void start() {
        CONFIG.forEach(System::setProperty);
        System.setProperty("ratelimit.redis.uri", REDIS.uri());
        try {
            server = TodosServer.start(0);
        } finally {
            CONFIG.keySet().forEach(System::clearProperty);
            System.clearProperty("ratelimit.redis.uri");
        }
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    @Order(1)
    void aShadowRefusalMovesShadowRefusedByExactlyOneAndRefusesNothing() throws Exception {
        String key = "shadow-" + UUID.randomUUID();
        MetricsScrape before = MetricsScrape.of(server.baseUri());

        HttpResponse<String> first = send("/todos/export", key);
        HttpResponse<String> second = send("/todos/export", key);

        MetricsScrape after = MetricsScrape.of(server.baseUri());
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(second.statusCode()).as("export (1 per 10 s) is in shadow mode: it never refuses").isEqualTo(200);
        assertThat(second.headers().firstValue("RateLimit-Policy")).hasValueSatisfying(
                policy -> assertThat(policy).as("a shadow limit adds no header").doesNotContain("export"));
        assertThat(delta(before, after, "export", "shadow_refused")).isEqualTo(1);
        assertThat(delta(before, after, "export", "allowed")).isEqualTo(1);
        assertThat(delta(before, after, "export", "refused")).isZero();
        assertThat(after.durations("redis", "decided") - before.durations("redis", "decided"))
                .as("the store decided both requests: two calls each, the filter's (module) and the bean's (export)")
                .isEqualTo(4);
        assertThat(after.startingWith("ratelimit_store_duration_seconds_count{").keySet())
                .allSatisfy(series -> assertThat(series).contains("ratelimit_store=\"redis\""));
    }

    @Test
    @Order(2)
    void whileRedisIsDownEveryRequestIsLetThroughAndCountedFailed() throws Exception {
        int requests = 5;
        MetricsScrape before = MetricsScrape.of(server.baseUri());
        REDIS.stop();
        try {
            for (int i = 0; i < requests; i++) {
                HttpResponse<String> response = send("/todos/1", "outage-" + UUID.randomUUID());
                assertThat(response.statusCode()).as("on-failure=allow lets request %d through", i).isEqualTo(200);
            }
            MetricsScrape after = MetricsScrape.of(server.baseUri());

            assertThat(delta(before, after, "module", "failed")).isEqualTo(requests);
            assertThat(delta(before, after, "module", "allowed")).as("the store decided nothing").isZero();
            assertThat(delta(before, after, "module", "uncounted")).as("counted once, as failed").isZero();
            double failed = after.durations("redis", "failed") - before.durations("redis", "failed");
            double timedOut = after.durations("redis", "timeout") - before.durations("redis", "timeout");
            // the first call finds Redis down; the others go without calling it (ratelimit.store.retry-millis)
            assertThat(failed + timedOut).as("store calls timed as failed (%s) or timeout (%s)", failed, timedOut)
                    .isEqualTo(1);
            assertThat(after.durations("redis", "decided")).isEqualTo(before.durations("redis", "decided"));
        } finally {
            REDIS.start();
        }
    }

    private static double delta(MetricsScrape before, MetricsScrape after, String policy, String outcome) {
        return after.requests(policy, outcome, "none") - before.requests(policy, outcome, "none");
    }

    private static HttpResponse<String> send(String path, String key) throws IOException, InterruptedException {
        return CLIENT.send(HttpRequest.newBuilder(URI.create(server.baseUri().toString().replaceAll("/$", "") + path))
                .header("X-Api-Key", key).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
