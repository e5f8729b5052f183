package dev.ratelimit.examples.todos.liberty;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.inject.Inject;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;

/**
 * {@code GET /metrics} on Open Liberty, a path Prometheus can scrape: the {@link MetricsRegistry} in the Prometheus text format (0.0.4), or
 * OpenMetrics 1.0 for a scraper that asks for it ({@code Accept: application/openmetrics-text}, as Prometheus does).
 *
 * <p>A servlet beside the application's Jakarta REST servlet (mapped to {@code /*}; an exact mapping wins), not a
 * resource: no rate limit covers it, so a scraper is never refused and scraping never moves the counters it reads,
 * and the OpenAPI document does not describe it. Liberty's own {@code /metrics} (the mpMetrics feature) is not
 * enabled: with the example deployed at {@code /}, this servlet answers it.
 */
@WebServlet(name = "metrics", urlPatterns = "/metrics")
public class MetricsServlet extends HttpServlet {

    static final String TEXT = "text/plain; version=0.0.4; charset=utf-8";
    static final String OPEN_METRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    @Inject
    PrometheusMeterRegistry registry;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        boolean openMetrics = Collections.list(request.getHeaders("Accept")).stream()
                .anyMatch(accept -> accept.contains("application/openmetrics-text"));
        String contentType = openMetrics ? OPEN_METRICS : TEXT;
        byte[] body = registry.scrape(contentType).getBytes(StandardCharsets.UTF_8);
        response.setStatus(HttpServletResponse.SC_OK);
        response.setContentType(contentType);
        response.setHeader("Cache-Control", "no-store");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }
}
