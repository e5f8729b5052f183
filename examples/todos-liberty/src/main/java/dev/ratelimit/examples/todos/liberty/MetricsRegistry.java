package dev.ratelimit.examples.todos.liberty;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The Micrometer registry of the example on Open Liberty, whose own metrics go through OpenTelemetry (mpTelemetry-2.0,
 * which has no Prometheus exporter): a CDI bean whose types include {@code MeterRegistry}, so that ratelimit-micrometer finds it and
 * records the rate-limit metrics into it, and {@link MetricsServlet} serves it at {@code GET /metrics}, as the embedded
 * example does.
 *
 * <p>{@code @Singleton}: one registry per application, handed out as itself (no client proxy), closed with it.
 */
@ApplicationScoped
public class MetricsRegistry {

    @Produces
    @Singleton
    PrometheusMeterRegistry registry() {
        return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    }

    void close(@Disposes PrometheusMeterRegistry registry) {
        registry.close();
    }
}
