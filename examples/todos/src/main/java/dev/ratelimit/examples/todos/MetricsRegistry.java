package dev.ratelimit.examples.todos;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The embedded runtime's Micrometer registry, a CDI bean as Quarkus' quarkus-micrometer makes its own: its
 * bean types include {@code MeterRegistry}, so ratelimit-micrometer finds it ({@code @Inject MeterRegistry})
 * and records the rate-limit metrics into it, and {@link MetricsEndpoint} serves it at {@code GET /metrics}.
 * Here, not in examples/todos-app: every other runtime brings its own registry or none.
 *
 * <p>{@code @Singleton}: one registry per container, handed out as itself (no client proxy), closed with the
 * container.
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
