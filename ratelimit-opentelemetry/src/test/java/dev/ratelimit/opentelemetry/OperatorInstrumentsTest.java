package dev.ratelimit.opentelemetry;

import static dev.ratelimit.core.testing.EngineFixtures.beanMethod;
import static dev.ratelimit.core.testing.EngineFixtures.decideNow;
import static dev.ratelimit.core.testing.EngineFixtures.limit;
import static dev.ratelimit.core.testing.EngineFixtures.settings;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.core.testing.ManualClock;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The instruments operators watch beside the decisions, in OpenTelemetry: the same names and attributes as in
 * Micrometer (docs/metrics.md).
 */
class OperatorInstrumentsTest {

    private final ManualClock clock = new ManualClock();
    private final InMemoryMetricReader reader = InMemoryMetricReader.create();
    private final SdkMeterProvider provider = SdkMeterProvider.builder().registerMetricReader(reader).build();
    private final OpenTelemetryRateLimitMetrics metrics =
            new OpenTelemetryRateLimitMetrics(OpenTelemetrySdk.builder().setMeterProvider(provider).build());

    @AfterEach
    void close() {
        provider.close();
    }

    @Test
    void nearLimitCountsAllowedRequestsThatLeftLessThanAFifthByLimitAndPlan() {
        RateLimitEngine engine = RateLimitEngine.builder(settings(), new InProcessRateLimitStore(100, clock))
                .metrics(metrics).clock(clock).build();
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 5, 60)));

        for (int i = 0; i < 6; i++) { // leaves 4, 3, 2, 1, 0, then refused
            decideNow(engine, engine.ledger("p"), limits);
        }

        MetricData near = metric(reader.collectAllMetrics(), RateLimitMetrics.NEAR_LIMIT);
        assertThat(near.getLongSumData().getPoints()).singleElement().satisfies(point -> {
            assertThat(point.getValue()).as("leaving 0 only: 1 is a fifth of 5, not less").isEqualTo(1);
            assertThat(point.getAttributes()).isEqualTo(Attributes.of(OpenTelemetryRateLimitMetrics.POLICY_KEY,
                    "default", OpenTelemetryRateLimitMetrics.PLAN_KEY, "none"));
        });
        assertThat(near.getUnit()).isEqualTo("{request}");
    }

    @Test
    void theBreakerIsAGaugeByStoreReadWhenCollected() {
        AtomicBoolean open = new AtomicBoolean();
        metrics.breaker("redis", open::get);
        metrics.refusedAtHome("default", "gold").increment();

        assertThat(gauge(reader.collectAllMetrics())).isZero();
        open.set(true);
        Collection<MetricData> collected = reader.collectAllMetrics();
        assertThat(gauge(collected)).isEqualTo(1);
        MetricData atHome = metric(collected, RateLimitMetrics.REFUSED_AT_HOME);
        assertThat(atHome.getLongSumData().getPoints()).singleElement()
                .satisfies(point -> assertThat(point.getValue()).isEqualTo(1));
    }

    private static long gauge(Collection<MetricData> collected) {
        MetricData breaker = metric(collected, RateLimitMetrics.BREAKER_OPEN);
        LongPointData point = breaker.getLongGaugeData().getPoints().iterator().next();
        assertThat(point.getAttributes()).isEqualTo(Attributes.of(OpenTelemetryRateLimitMetrics.STORE_KEY, "redis"));
        return point.getValue();
    }

    private static MetricData metric(Collection<MetricData> collected, String name) {
        return collected.stream().filter(m -> m.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(name + " not among " + collected.stream().map(MetricData::getName).toList()));
    }
}
