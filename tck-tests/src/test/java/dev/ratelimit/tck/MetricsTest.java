package dev.ratelimit.tck;

import dev.ratelimit.tck.support.Caller;
import dev.ratelimit.tck.support.DefaultLimitTraffic;
import dev.ratelimit.tck.support.Reply;
import dev.ratelimit.tck.support.ServerUnderTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The rate-limit metrics (docs/metrics.md), read where the server serves its metrics in the Prometheus text format
 * ({@code tck.metricsPath}: {@code /metrics} for the embedded example, which is also the default when the suite starts
 * it, and for Payara; {@code /q/metrics} on Quarkus; {@code none} skips these tests, for a server that serves no such
 * text): the counters of {@code ratelimit_requests_total} move by exactly what a scripted sequence of requests decides,
 * by limit, outcome and plan.
 *
 * <p>Exact deltas, asserted at once: every sequence reads the counters before and after, and they must have moved by
 * exactly the sequence's decisions, no more and no less, so that a server that counts one decision twice (or not at
 * all) fails the first time. Nothing else moves them in between: the suite runs one class at a time except
 * {@code SpecExampleTest}, whose {@code GET /todos} in no plan the counters of {@code default} count too, and which
 * sends them only outside such a sequence ({@link DefaultLimitTraffic}); the gold plan's counters are moved by
 * {@code PlansTest} alone, which never runs beside this class. So the server under test must serve no other client
 * while the suite runs, as it does in every build.
 *
 * <p>Against an external server ({@code tck.baseUrl}, or a server the launcher started) the run must say whether
 * there are metrics to read: a path, or {@code none}. A run that lost the property fails here instead of skipping
 * these tests in silence, so a runtime whose metrics broke cannot pass by the property going missing.
 */
class MetricsTest extends TckTestBase {

    static final String METRICS_PATH_PROPERTY = "tck.metricsPath";
    static final String REQUESTS = "ratelimit_requests_total";
    private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})?\\s+(\\S+)(\\s+\\S+)?");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    private String path;

    @BeforeEach
    void needsAScrapeEndpoint() {
        path = metricsPath();
        assumeTrue(path != null, METRICS_PATH_PROPERTY + "=none: the server serves no Prometheus text to read");
    }

    @Test
    void threeAllowedAndOneRefusedMoveTheCountersOfDefaultByExactlyThat() {
        Map<Series, Double> expected = Map.of(
                Series.of(DEFAULT, "allowed", "none"), 3.0,
                Series.of(DEFAULT, "refused", "none"), 1.0,
                Series.of(DEFAULT, "shadow_refused", "none"), 0.0,
                Series.of(DEFAULT, "failed", "none"), 0.0);

        Scrape after = DefaultLimitTraffic.alone(() -> exactly(expected, () -> {
            Caller caller = server.withFreshKey();
            for (int i = 1; i <= 3; i++) {
                caller.get(TODOS).assertStatus(200);
            }
            caller.get(TODOS).assertRefusedBy(DEFAULT);
            return caller.toString();
        }));

        assertThat(after.sum(Series.of(DEFAULT, "refused", "none"))).as("the counter the specification shows").isPositive();
    }

    @Test
    void goldCallersAreCountedUnderTheirPlan() {
        Map<Series, Double> expected = Map.of(
                Series.of(DEFAULT, "allowed", "gold"), 10.0,
                Series.of(DEFAULT, "refused", "gold"), 1.0);

        exactly(expected, () -> {
            String name = ServerUnderTest.freshName("metrics-gold");
            Caller gold = server.anonymous().withHeader("Authorization", "Bearer " + name + ":gold");
            for (int i = 1; i <= 10; i++) {
                gold.get(TODOS).assertStatus(200);
            }
            gold.get(TODOS).assertRefusedBy(DEFAULT);
            return name;
        });
    }

    @Test
    void labelsAreTheLimitTheOutcomeAndThePlanNeverTheCallerOrThePath() {
        String key = ServerUnderTest.freshName("metrics-key");
        String name = ServerUnderTest.freshName("metrics-user");
        server.withKey(key).get(TODOS).assertStatus(200);
        server.as(name).get(MISSING_TODO).assertStatus(404);

        Scrape scrape = scrape();

        List<Sample> requests = scrape.named(REQUESTS);
        assertThat(requests).as("%s in %s", REQUESTS, path).isNotEmpty();
        Set<String> outcomes = Set.of("allowed", "refused", "shadow_refused", "uncounted", "failed");
        for (Sample sample : requests) {
            assertThat(sample.labels()).as("%s", sample).containsKeys("ratelimit_policy", "ratelimit_outcome", "ratelimit_plan");
            assertThat(sample.labels().get("ratelimit_outcome")).as("%s", sample).isIn(outcomes);
            assertThat(sample.labels().get("ratelimit_plan")).as("%s", sample).isIn("none", "gold");
        }
        for (Sample sample : scrape.samples()) {
            if (sample.name().startsWith("ratelimit_")) {
                assertThat(sample.labels().values()).as("%s", sample).noneSatisfy(value -> assertThat(value)
                        .containsAnyOf(key, name, "2147480000", "/todos"));
            }
        }
        assertThat(scrape.named("ratelimit_store_duration_seconds_count")).as("the store's durations, in seconds")
                .isNotEmpty().allSatisfy(sample -> assertThat(sample.labels()).containsKeys("ratelimit_store", "ratelimit_outcome"));
    }

    @Test
    void scrapingIsNeverRateLimited() {
        for (int i = 0; i < 5; i++) {
            Reply reply = scrapeReply();
            assertThat(reply.header("RateLimit-Policy")).as("no limit covers %s: %s", path, reply).isEmpty();
            assertThat(reply.header("RateLimit")).as("no limit covers %s: %s", path, reply).isEmpty();
        }
    }

    /**
     * Runs {@code sequence} between two reads of the counters, which must have moved by exactly the values of
     * {@code expected}: more is a decision counted twice, less a decision not counted (see the class comment).
     *
     * @param sequence sends the requests and names its caller, for the message
     * @return the read after the sequence
     */
    private Scrape exactly(Map<Series, Double> expected, Supplier<String> sequence) {
        Scrape before = scrape();
        String caller = sequence.get();
        Scrape after = scrape();
        Map<Series, Double> moved = new LinkedHashMap<>();
        expected.keySet().forEach(series -> moved.put(series, after.sum(series) - before.sum(series)));
        assertThat(moved).as("how far the counters moved over the sequence of %s", caller)
                .containsExactlyInAnyOrderEntriesOf(expected);
        return after;
    }

    private Scrape scrape() {
        return Scrape.parse(scrapeReply().body());
    }

    private Reply scrapeReply() {
        // the classic text format: a runtime that also speaks OpenMetrics answers it for this Accept
        return server.anonymous().withHeader("Accept", "text/plain; version=0.0.4").get(path).assertStatus(200);
    }

    /**
     * The path of the scrape endpoint; null when the run says there is none ({@code none}). Unset or blank: the
     * embedded example's {@code /metrics} when the suite starts it; a failure for an external server, which must say.
     */
    private static String metricsPath() {
        String value = System.getProperty(METRICS_PATH_PROPERTY);
        if (value == null || value.isBlank()) {
            String baseUrl = System.getProperty(ServerUnderTest.BASE_URL_PROPERTY);
            if (baseUrl != null && !baseUrl.isBlank()) {
                return fail("%s is not set, but the server under test is external (%s=%s): its run must say where the "
                        + "server serves its metrics in the Prometheus text format (a path, e.g. /metrics), or none",
                        METRICS_PATH_PROPERTY, ServerUnderTest.BASE_URL_PROPERTY, baseUrl);
            }
            return "/metrics";
        }
        return value.strip().equalsIgnoreCase("none") ? null : value.strip();
    }

    /** A {@value #REQUESTS} series, by its labels (a runtime may add labels of its own). */
    record Series(String policy, String outcome, String plan) {
        static Series of(String policy, String outcome, String plan) {
            return new Series(policy, outcome, plan);
        }

        boolean matches(Sample sample) {
            return sample.name().equals(REQUESTS) && policy.equals(sample.labels().get("ratelimit_policy"))
                    && outcome.equals(sample.labels().get("ratelimit_outcome"))
                    && plan.equals(sample.labels().get("ratelimit_plan"));
        }

        @Override
        public String toString() {
            return REQUESTS + "{ratelimit_outcome=\"" + outcome + "\",ratelimit_plan=\"" + plan
                    + "\",ratelimit_policy=\"" + policy + "\"}";
        }
    }

    record Sample(String name, Map<String, String> labels, double value) {
    }

    /** One read of the Prometheus text format (0.0.4): its samples, the values of {@code 1} and {@code 1.0} alike. */
    record Scrape(List<Sample> samples) {

        static Scrape parse(String text) {
            List<Sample> samples = new ArrayList<>();
            for (String line : text.split("\n")) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                Matcher sample = SAMPLE.matcher(line.strip());
                if (!sample.matches()) {
                    throw new AssertionError("not a Prometheus sample line: " + line);
                }
                Map<String, String> labels = new TreeMap<>();
                if (sample.group(3) != null) {
                    Matcher label = LABEL.matcher(sample.group(3));
                    while (label.find()) {
                        labels.put(label.group(1), label.group(2));
                    }
                }
                samples.add(new Sample(sample.group(1), labels, value(sample.group(4))));
            }
            return new Scrape(samples);
        }

        private static double value(String text) {
            return switch (text) {
                case "+Inf" -> Double.POSITIVE_INFINITY;
                case "-Inf" -> Double.NEGATIVE_INFINITY;
                default -> Double.parseDouble(text);
            };
        }

        /** The series' value, summed over any labels a runtime adds; 0 when it is absent (nothing counted yet). */
        double sum(Series series) {
            return samples.stream().filter(series::matches).mapToDouble(Sample::value).sum();
        }

        List<Sample> named(String name) {
            return samples.stream().filter(s -> s.name().equals(name)).toList();
        }
    }
}
