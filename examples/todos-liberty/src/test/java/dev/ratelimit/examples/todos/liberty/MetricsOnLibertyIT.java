package dev.ratelimit.examples.todos.liberty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The rate-limit metrics on Open Liberty: ratelimit-opentelemetry records into the OpenTelemetry of mpTelemetry-2.0,
 * whose SDK (bootstrap.properties) exports every metric to the log each second (the console exporter: one line per
 * instrument in {@code messages.log}, with every point, cumulative). Ten allowed and one refused
 * {@code GET /todos} of a fresh gold caller move {@code ratelimit.requests} by exactly that, under the
 * attributes of the limit, the outcome and the plan.
 *
 * <p>Run by failsafe (execution {@code metrics}) against the server that tck-launcher starts; it reads
 * {@code tck.baseUrl} (set by the launcher) and {@value #MESSAGES_LOG_PROPERTY} (default
 * {@value #DEFAULT_MESSAGES_LOG}). Each read is an export
 * collected after a given instant (its points' {@code epochNanos}), so that nothing decided before that
 * instant is missing from it.
 */
class MetricsOnLibertyIT {

    static final String MESSAGES_LOG_PROPERTY = "tck.liberty.messagesLog";
    /** Relative to the module (failsafe's working directory): the server that the build creates. */
    static final String DEFAULT_MESSAGES_LOG = "target/liberty/wlp/usr/servers/todos/logs/messages.log";
    private static final Duration EXPORT_WAIT = Duration.ofSeconds(10);
    private static final String REQUESTS = "name=ratelimit.requests,";
    private static final Pattern EPOCH = Pattern.compile("epochNanos=(\\d+)");
    private static final Pattern POINT = Pattern.compile("attributes=\\{([^}]*)}, value=(\\d+)");
    private static final Pattern ATTRIBUTE = Pattern.compile("([\\w.]+)=\"([^\"]*)\"");

    private final HttpClient client = HttpClient.newHttpClient();

    @Test
    void tenAllowedAndOneRefusedGoldRequestsAreExportedExactly() throws Exception {
        String base = System.getProperty("tck.baseUrl");
        assertThat(base).as("tck.baseUrl, set by tck-launcher once the server answers").isNotBlank();
        Path log = Path.of(System.getProperty(MESSAGES_LOG_PROPERTY, DEFAULT_MESSAGES_LOG));
        Series allowed = new Series("default", "allowed", "gold");
        Series refused = new Series("default", "refused", "gold");

        Export before = exportCollectedAfter(log, nowEpochNanos());

        String caller = "Bearer metrics-" + UUID.randomUUID() + ":gold";
        for (int i = 1; i <= 10; i++) {
            HttpResponse<String> reply = get(base + "/todos", caller);
            assertThat(reply.statusCode()).as("GET /todos #%d of a gold caller (10 a minute): %s", i, reply.body())
                    .isEqualTo(200);
        }
        HttpResponse<String> eleventh = get(base + "/todos", caller);
        assertThat(eleventh.statusCode()).as("the 11th GET /todos of a gold caller").isEqualTo(429);
        assertThat(eleventh.body()).contains("\"violated-policies\":[\"default\"]");

        Export after = exportCollectedAfter(log, nowEpochNanos());

        assertThat(after.value(allowed) - before.value(allowed)).as("%s: before %s, after %s", allowed, before, after)
                .isEqualTo(10);
        assertThat(after.value(refused) - before.value(refused)).as("%s: before %s, after %s", refused, before, after)
                .isEqualTo(1);
    }

    private HttpResponse<String> get(String url, String authorization) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).header("Authorization", authorization)
                .timeout(Duration.ofSeconds(10)).GET().build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static long nowEpochNanos() {
        return TimeUnit.MILLISECONDS.toNanos(System.currentTimeMillis());
    }

    /** The latest export of {@code ratelimit.requests} in the log, once one collected after {@code epochNanos} is there. */
    private static Export exportCollectedAfter(Path log, long epochNanos) throws Exception {
        long deadline = System.nanoTime() + EXPORT_WAIT.toNanos();
        Export latest = null;
        while (System.nanoTime() < deadline) {
            latest = latestExport(log);
            if (latest != null && latest.epochNanos() > epochNanos) {
                return latest;
            }
            Thread.sleep(200);
        }
        return fail("no export of ratelimit.requests collected after %d (epoch ns) in %s within %d s; the latest: %s",
                epochNanos, log, EXPORT_WAIT.toSeconds(), latest);
    }

    private static Export latestExport(Path log) throws IOException {
        if (!Files.exists(log)) {
            return null;
        }
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        for (int i = lines.size() - 1; i >= 0; i--) {
            String line = lines.get(i);
            int at = line.indexOf(REQUESTS);
            if (at >= 0) {
                return Export.parse(line.substring(at));
            }
        }
        return null;
    }

    record Series(String policy, String outcome, String plan) {
    }

    /** One export of {@code ratelimit.requests}: when it was collected, and the cumulative value of each series. */
    record Export(long epochNanos, Map<Series, Long> values) {

        static Export parse(String text) {
            assertThat(text).as("the console exporter's cumulative sums (what the deltas assume)")
                    .contains("aggregationTemporality=CUMULATIVE");
            Matcher epoch = EPOCH.matcher(text);
            assertThat(epoch.find()).as("epochNanos in %s", text).isTrue();
            Map<Series, Long> values = new HashMap<>();
            Matcher point = POINT.matcher(text);
            while (point.find()) {
                Map<String, String> attributes = new HashMap<>();
                Matcher attribute = ATTRIBUTE.matcher(point.group(1));
                while (attribute.find()) {
                    attributes.put(attribute.group(1), attribute.group(2));
                }
                values.merge(new Series(attributes.get("ratelimit.policy"), attributes.get("ratelimit.outcome"),
                        attributes.get("ratelimit.plan")), Long.parseLong(point.group(2)), Long::sum);
            }
            return new Export(Long.parseLong(epoch.group(1)), values);
        }

        /** 0 when the series has not been exported (nothing counted in it yet). */
        long value(Series series) {
            return values.getOrDefault(series, 0L);
        }
    }
}
