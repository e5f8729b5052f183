package dev.ratelimit.examples.todos;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;
import org.glassfish.grizzly.http.server.HttpHandler;
import org.glassfish.grizzly.http.server.Request;

/**
 * {@code GET /metrics} on the embedded server: the {@link MetricsRegistry} in the Prometheus text format
 * (0.0.4), or OpenMetrics 1.0 for a scraper that asks for it ({@code Accept: application/openmetrics-text}, as
 * Prometheus does). The rate-limit metrics are those of docs/metrics.md, e.g.
 * {@code ratelimit_requests_total{ratelimit_outcome="refused",ratelimit_plan="none",ratelimit_policy="default"} 1}.
 *
 * <p>Like {@link OpenApiEndpoint}, a Grizzly {@link HttpHandler} of its own beside Jersey (context path
 * {@value #PATH}), not a Jakarta REST resource: no rate limit covers it (a scraper is never refused, and
 * scraping never moves the counters it reads), the OpenAPI document does not describe it, and the other
 * runtimes, which serve their own metrics, never see it.
 *
 * <p>The Prometheus text writes each value as the Prometheus server's own (Go) client does: a whole number
 * without a fraction ({@code 1}, where Micrometer's Java client writes {@code 1.0}); the same value to every
 * parser (see {@link #wholeNumbersAsIntegers}).
 */
final class MetricsEndpoint extends ReadOnlyEndpoint {

    static final String PATH = "/metrics";
    static final String TEXT = "text/plain; version=0.0.4; charset=utf-8";
    static final String OPEN_METRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    private final PrometheusMeterRegistry registry;

    MetricsEndpoint(PrometheusMeterRegistry registry) {
        super("metrics", PATH);
        this.registry = registry;
    }

    @Override
    Document document(Request request) {
        boolean openMetrics = wantsOpenMetrics(request);
        String text = openMetrics ? registry.scrape(OPEN_METRICS) : wholeNumbersAsIntegers(registry.scrape(TEXT));
        return new Document(openMetrics ? OPEN_METRICS : TEXT, text.getBytes(StandardCharsets.UTF_8), true);
    }

    private static boolean wantsOpenMetrics(Request request) {
        for (String accept : request.getHeaders("Accept")) {
            if (accept.contains("application/openmetrics-text")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The Prometheus text with every sample value that is a whole number written without a fraction or an
     * exponent ({@code 1.0} and {@code 1.0E7} become {@code 1} and {@code 10000000}), as Go's client writes
     * them. Only the value, the last field of a sample line (Micrometer writes no timestamps); comments, names
     * and labels ({@code le="1.0"} included) stay as they are.
     */
    static String wholeNumbersAsIntegers(String text) {
        StringBuilder out = new StringBuilder(text.length());
        int start = 0;
        while (start < text.length()) {
            int end = text.indexOf('\n', start);
            if (end < 0) {
                end = text.length();
            }
            String line = text.substring(start, end);
            int space = line.lastIndexOf(' ');
            if (!line.isEmpty() && line.charAt(0) != '#' && space > 0) {
                out.append(line, 0, space + 1).append(integral(line.substring(space + 1)));
            } else {
                out.append(line);
            }
            if (end < text.length()) {
                out.append('\n');
            }
            start = end + 1;
        }
        return out.toString();
    }

    private static String integral(String value) {
        double number;
        try {
            number = Double.parseDouble(value);
        } catch (NumberFormatException e) {
            return value; // +Inf, -Inf, NaN
        }
        if (Double.isFinite(number) && number == Math.rint(number) && Math.abs(number) < 1e15) {
            return Long.toString((long) number);
        }
        return value;
    }

}
