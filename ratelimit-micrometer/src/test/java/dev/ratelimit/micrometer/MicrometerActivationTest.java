package dev.ratelimit.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.core.RateLimitExceededException;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The module on a CDI class path (Weld SE, SmallRye Config, ratelimit-cdi): it activates itself when the
 * application has a {@link MeterRegistry} bean, and the engine that ratelimit-cdi builds records into it;
 * without one (or with several and no default) it records nothing, and limits work as without it.
 */
class MicrometerActivationTest {

    private static final Map<String, String> ITEMS = Map.of(
            "ratelimit.limits.items.permit-limit", "1", "ratelimit.limits.items.window-seconds", "60");

    static MeterRegistry produced;

    private final ConcurrentLinkedQueue<String> logged = new ConcurrentLinkedQueue<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(record.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void configure() {
        ITEMS.forEach(System::setProperty);
        Logger.getLogger("dev.ratelimit").addHandler(capture);
    }

    @AfterEach
    void forget() {
        Logger.getLogger("dev.ratelimit").removeHandler(capture);
        ITEMS.keySet().forEach(System::clearProperty);
        ConfigProviderResolver.instance().releaseConfig(ConfigProvider.getConfig(getClass().getClassLoader()));
        produced = null;
    }

    @Test
    void withAMeterRegistryBeanTheEngineRecordsIntoIt() {
        produced = new SimpleMeterRegistry();
        try (WeldContainer container = new Weld().addBeanClass(SimpleRegistry.class).initialize()) {
            RateLimiter limiter = container.select(RateLimiter.class).get();

            limiter.acquire("items", 1, "p");
            assertThatThrownBy(() -> limiter.acquire("items", 1, "p")).isInstanceOf(RateLimitExceededException.class);

            assertThat(container.select(MicrometerRateLimitMetrics.class).get().isEnabled()).isTrue();
            assertThat(requests("items", "allowed")).isEqualTo(1);
            assertThat(requests("items", "refused")).isEqualTo(1);
            assertThat(produced.get(RateLimitMetrics.COUNTS).gauge().value()).isEqualTo(1);
            assertThat(produced.get(RateLimitMetrics.COUNTS_MAX).gauge().value()).isEqualTo(10_000);
            assertThat(produced.get(RateLimitMetrics.STORE_DURATION).tags(RateLimitMetrics.STORE, "in-process",
                    RateLimitMetrics.OUTCOME, "decided").timer().count()).isEqualTo(2);
        }
        assertThat(produced.getMeters()).as("removed when the application stopped").isEmpty();
    }

    @Test
    void aRegistryOfASubtypeIsFoundAsTheMeterRegistry() {
        try (WeldContainer container = new Weld().addBeanClass(PrometheusRegistry.class).initialize()) {
            container.select(RateLimiter.class).get().acquire("items", 1, "p");

            PrometheusMeterRegistry prometheus = container.select(PrometheusMeterRegistry.class).get();
            assertThat(MicrometerRateLimitMetricsTest.samples(prometheus.scrape())).containsEntry(
                    "ratelimit_requests_total{ratelimit_outcome=\"allowed\",ratelimit_plan=\"none\",ratelimit_policy=\"items\"}", 1.0);
        }
    }

    @Test
    void withoutAMeterRegistryBeanNothingIsRecordedAndLimitsWorkAsWithoutTheModule() {
        try (WeldContainer container = new Weld().initialize()) {
            RateLimiter limiter = container.select(RateLimiter.class).get();

            limiter.acquire("items", 1, "p");
            assertThatThrownBy(() -> limiter.acquire("items", 1, "p")).isInstanceOf(RateLimitExceededException.class);

            assertThat(container.select(MicrometerRateLimitMetrics.class).get().isEnabled()).isFalse();
            assertThat(logged).noneSatisfy(line -> assertThat(line).contains("Micrometer"));
        }
    }

    @Test
    void withTwoRegistriesAndNoDefaultNoneIsChosenAndAWarningSaysSo() {
        produced = new SimpleMeterRegistry();
        try (WeldContainer container = new Weld().addBeanClasses(SimpleRegistry.class, PrometheusRegistry.class)
                .initialize()) {
            container.select(RateLimiter.class).get().acquire("items", 1, "p");

            assertThat(container.select(MicrometerRateLimitMetrics.class).get().isEnabled()).isFalse();
            assertThat(produced.getMeters()).isEmpty();
            assertThat(logged).anySatisfy(line -> assertThat(line)
                    .contains("no metrics in Micrometer: several MeterRegistry beans (")
                    .contains("SimpleMeterRegistry").contains("PrometheusMeterRegistry"));
        }
    }

    private static double requests(String policy, String outcome) {
        return produced.get(RateLimitMetrics.REQUESTS).tags(RateLimitMetrics.POLICY, policy,
                RateLimitMetrics.OUTCOME, outcome, RateLimitMetrics.PLAN, "none").counter().count();
    }

    /** An application's registry, which outlives the container (a registry the runtime owns). */
    @ApplicationScoped
    static class SimpleRegistry {
        @Produces
        @Singleton
        MeterRegistry registry() {
            return produced;
        }
    }

    /** As the embedded example produces it: its type is PrometheusMeterRegistry (and so MeterRegistry too). */
    @ApplicationScoped
    static class PrometheusRegistry {
        @Produces
        @Singleton
        PrometheusMeterRegistry registry() {
            return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        }
    }
}
