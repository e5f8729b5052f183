package dev.ratelimit.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * One read of {@code GET /metrics}: every sample of the Prometheus text, as its series (name and labels, as
 * written) to its value.
 */
record MetricsScrape(String text, Map<String, Double> samples) {

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    static MetricsScrape of(URI base) {
        try {
            HttpResponse<String> response = CLIENT.send(HttpRequest.newBuilder(base.resolve("metrics"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new AssertionError("GET /metrics answered " + response.statusCode() + ": " + response.body());
            }
            return parse(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static MetricsScrape parse(String text) {
        Map<String, Double> samples = new TreeMap<>();
        text.lines().filter(line -> !line.isBlank() && !line.startsWith("#")).forEach(line -> {
            int space = line.lastIndexOf(' ');
            samples.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
        });
        return new MetricsScrape(text, Collections.unmodifiableMap(samples));
    }

    /** {@code ratelimit_requests_total} of (policy, outcome, plan); 0 when the series is absent. */
    double requests(String policy, String outcome, String plan) {
        return value("ratelimit_requests_total{ratelimit_outcome=\"" + outcome + "\",ratelimit_plan=\"" + plan
                + "\",ratelimit_policy=\"" + policy + "\"}");
    }

    /** {@code ratelimit_store_duration_seconds_count} of (store, outcome); 0 when absent. */
    double durations(String store, String outcome) {
        return value("ratelimit_store_duration_seconds_count{ratelimit_outcome=\"" + outcome + "\",ratelimit_store=\""
                + store + "\"}");
    }

    double value(String series) {
        return samples.getOrDefault(series, 0.0);
    }

    /** The samples whose series starts with {@code prefix}. */
    Map<String, Double> startingWith(String prefix) {
        Map<String, Double> found = new LinkedHashMap<>();
        samples.forEach((series, value) -> {
            if (series.startsWith(prefix)) {
                found.put(series, value);
            }
        });
        return found;
    }
}
