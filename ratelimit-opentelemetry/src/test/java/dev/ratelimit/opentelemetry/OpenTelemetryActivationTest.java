package dev.ratelimit.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.core.RateLimitExceededException;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The module on a CDI class path (Weld SE, SmallRye Config, ratelimit-cdi): the {@link OpenTelemetry} bean of
 * MicroProfile Telemetry when there is one, else the global one when it is set; enabled only when that one
 * has a real meter provider (MicroProfile Telemetry's default, {@code otel.sdk.disabled=true}, is a no-op).
 */
class OpenTelemetryActivationTest {

    private static final Map<String, String> ITEMS = Map.of(
            "ratelimit.limits.items.permit-limit", "1", "ratelimit.limits.items.window-seconds", "60");

    static OpenTelemetry produced;

    private final InMemoryMetricReader reader = InMemoryMetricReader.create();
    private final SdkMeterProvider provider = SdkMeterProvider.builder().registerMetricReader(reader).build();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setMeterProvider(provider).build();

    @BeforeEach
    void configure() {
        ITEMS.forEach(System::setProperty);
        GlobalOpenTelemetry.resetForTest();
    }

    @AfterEach
    void forget() {
        ITEMS.keySet().forEach(System::clearProperty);
        ConfigProviderResolver.instance().releaseConfig(ConfigProvider.getConfig(getClass().getClassLoader()));
        GlobalOpenTelemetry.resetForTest();
        produced = null;
        sdk.close();
    }

    @Test
    void withAnOpenTelemetryBeanTheEngineRecordsIntoIt() {
        produced = sdk;
        try (WeldContainer container = new Weld().addBeanClass(OpenTelemetryBean.class).initialize()) {
            spendTwice(container);

            assertThat(container.select(OpenTelemetryRateLimitMetrics.class).get().isEnabled()).isTrue();
            assertThat(requests()).containsOnly(Map.entry("items/allowed/none", 1L), Map.entry("items/refused/none", 1L));
            assertThat(reader.collectAllMetrics()).extracting(MetricData::getName)
                    .contains(RateLimitMetrics.COUNTS, RateLimitMetrics.COUNTS_MAX, RateLimitMetrics.STORE_DURATION);
        }
        assertThat(reader.collectAllMetrics()).extracting(MetricData::getName)
                .as("the gauges are unregistered when the application stops")
                .doesNotContain(RateLimitMetrics.COUNTS, RateLimitMetrics.COUNTS_MAX);
        assertThat(GlobalOpenTelemetry.isSet()).as("the global instance is left alone").isFalse();
    }

    @Test
    void aNoopBeanAsMicroProfileTelemetryGivesByDefaultRecordsNothing() {
        produced = OpenTelemetry.noop();
        GlobalOpenTelemetry.set(sdk); // the bean wins over the global instance, even a no-op bean
        try (WeldContainer container = new Weld().addBeanClass(OpenTelemetryBean.class).initialize()) {
            spendTwice(container);

            assertThat(container.select(OpenTelemetryRateLimitMetrics.class).get().isEnabled()).isFalse();
            assertThat(requests()).isEmpty();
        }
    }

    @Test
    void anSdkWithoutAMetricReaderAsPayaraGivesByDefaultRecordsNothing() {
        SdkMeterProvider readerless = SdkMeterProvider.builder().build();
        produced = OpenTelemetrySdk.builder().setMeterProvider(readerless).build();
        try (WeldContainer container = new Weld().addBeanClass(OpenTelemetryBean.class).initialize()) {
            spendTwice(container);

            assertThat(container.select(OpenTelemetryRateLimitMetrics.class).get().isEnabled()).isFalse();
        } finally {
            readerless.close();
        }
    }

    @Test
    void withoutABeanTheGlobalInstanceIsUsedWhenSet() {
        GlobalOpenTelemetry.set(sdk);
        try (WeldContainer container = new Weld().initialize()) {
            spendTwice(container);

            assertThat(container.select(OpenTelemetryRateLimitMetrics.class).get().isEnabled()).isTrue();
            assertThat(requests()).containsOnly(Map.entry("items/allowed/none", 1L), Map.entry("items/refused/none", 1L));
        }
    }

    @Test
    void withoutABeanOrAGlobalInstanceNothingIsRecordedAndNoNoopGlobalIsSet() {
        try (WeldContainer container = new Weld().initialize()) {
            spendTwice(container);

            assertThat(container.select(OpenTelemetryRateLimitMetrics.class).get().isEnabled()).isFalse();
        }
        assertThat(GlobalOpenTelemetry.isSet()).as("an application may still set the global instance").isFalse();
        GlobalOpenTelemetry.set(sdk);
    }

    /** Spends "items" (1 per minute) twice: allowed, then refused; limits work whether metrics are on or not. */
    private static void spendTwice(WeldContainer container) {
        RateLimiter limiter = container.select(RateLimiter.class).get();
        limiter.acquire("items", 1, "p");
        assertThatThrownBy(() -> limiter.acquire("items", 1, "p")).isInstanceOf(RateLimitExceededException.class);
    }

    private Map<String, Long> requests() {
        Map<String, Long> values = new TreeMap<>();
        for (MetricData metric : reader.collectAllMetrics()) {
            if (metric.getName().equals(RateLimitMetrics.REQUESTS)) {
                for (LongPointData point : metric.getLongSumData().getPoints()) {
                    values.put(point.getAttributes().get(AttributeKey.stringKey(RateLimitMetrics.POLICY)) + "/"
                            + point.getAttributes().get(AttributeKey.stringKey(RateLimitMetrics.OUTCOME)) + "/"
                            + point.getAttributes().get(AttributeKey.stringKey(RateLimitMetrics.PLAN)), point.getValue());
                }
            }
        }
        return values;
    }

    /** As MicroProfile Telemetry provides it: {@code @Inject OpenTelemetry}. */
    @ApplicationScoped
    static class OpenTelemetryBean {
        @Produces
        @Singleton
        OpenTelemetry openTelemetry() {
            return produced;
        }
    }
}
