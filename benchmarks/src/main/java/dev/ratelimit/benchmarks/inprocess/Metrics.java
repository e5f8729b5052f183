package dev.ratelimit.benchmarks.inprocess;

import dev.ratelimit.benchmarks.support.Ours;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import dev.ratelimit.micrometer.MicrometerRateLimitMetrics;
import dev.ratelimit.opentelemetry.OpenTelemetryRateLimitMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.metrics.InstrumentType;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.export.MetricExporter;
import io.opentelemetry.sdk.metrics.export.PeriodicMetricReader;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What recording the metrics costs a request: the engine's request path on one hot key, one limit, one
 * thread (a ledger and {@code decideNow}, as the deciding filter runs it), three times side by side:
 * <ul>
 *   <li>{@code ratelimit_noMetrics}: {@code RateLimitMetrics.NONE} (no metrics library: the engine does not
 *       even read the clock for the store duration);</li>
 *   <li>{@code ratelimit_micrometer}: {@code ratelimit-micrometer} on a Micrometer {@code SimpleMeterRegistry};</li>
 *   <li>{@code ratelimit_openTelemetry}: {@code ratelimit-opentelemetry} on an OpenTelemetry SDK meter provider
 *       with a periodic reader (its exporter discards; it does not export during a run: 60 s interval).</li>
 * </ul>
 * Per request the engine increments the limit's {@code ratelimit.requests} counter (outcome {@code allowed})
 * and records the store's duration (two clock readings and a histogram record).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
@Threads(1)
@State(Scope.Benchmark)
public class Metrics {

    String key = "sub:alice";
    final RateLimitPolicy policy = Ours.policy("hot");

    RateLimitEngine none;
    BoundLimits noneLimits;
    SimpleMeterRegistry registry;
    RateLimitEngine micrometer;
    BoundLimits micrometerLimits;
    SdkMeterProvider meterProvider;
    RateLimitEngine openTelemetry;
    BoundLimits openTelemetryLimits;

    @Setup
    public void setUp() {
        none = Ours.engine(RateLimitMetrics.NONE);
        noneLimits = Ours.bind(none, "Metrics", policy);

        registry = new SimpleMeterRegistry();
        micrometer = Ours.engine(enabled(new MicrometerRateLimitMetrics(registry)));
        micrometerLimits = Ours.bind(micrometer, "Metrics", policy);

        meterProvider = SdkMeterProvider.builder()
                .registerMetricReader(PeriodicMetricReader.builder(new DiscardingExporter()).build())
                .build();
        OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setMeterProvider(meterProvider).build();
        openTelemetry = Ours.engine(enabled(new OpenTelemetryRateLimitMetrics(sdk)));
        openTelemetryLimits = Ours.bind(openTelemetry, "Metrics", policy);

        stillAllowed();
        System.gc();
    }

    @TearDown
    public void tearDown() {
        stillAllowed();
        meterProvider.close();
        registry.close();
    }

    private void stillAllowed() {
        Checks.allowed(Ours.decideNow(none, none.ledger(key), noneLimits));
        Checks.allowed(Ours.decideNow(micrometer, micrometer.ledger(key), micrometerLimits));
        Checks.allowed(Ours.decideNow(openTelemetry, openTelemetry.ledger(key), openTelemetryLimits));
        double counted = registry.get(RateLimitMetrics.REQUESTS).tag(RateLimitMetrics.OUTCOME, "allowed").counter().count();
        if (counted < 1) {
            throw new IllegalStateException("Micrometer counted no request");
        }
    }

    @Benchmark
    public RateLimitDecision ratelimit_noMetrics(Blackhole bh) {
        return decideNow(none, noneLimits, bh);
    }

    @Benchmark
    public RateLimitDecision ratelimit_micrometer(Blackhole bh) {
        return decideNow(micrometer, micrometerLimits, bh);
    }

    @Benchmark
    public RateLimitDecision ratelimit_openTelemetry(Blackhole bh) {
        return decideNow(openTelemetry, openTelemetryLimits, bh);
    }

    private RateLimitDecision decideNow(RateLimitEngine engine, BoundLimits limits, Blackhole bh) {
        RequestLedger ledger = engine.ledger(key);
        bh.consume(ledger);
        return Ours.decideNow(engine, ledger, limits);
    }

    private static RateLimitMetrics enabled(RateLimitMetrics metrics) {
        if (!metrics.isEnabled()) {
            throw new IllegalStateException(metrics + " records nothing");
        }
        return metrics;
    }

    /** An exporter that keeps nothing: the benchmark measures recording, not exporting. */
    private static final class DiscardingExporter implements MetricExporter {
        @Override
        public AggregationTemporality getAggregationTemporality(InstrumentType instrumentType) {
            return AggregationTemporality.CUMULATIVE;
        }

        @Override
        public CompletableResultCode export(Collection<MetricData> metrics) {
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode flush() {
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode shutdown() {
            return CompletableResultCode.ofSuccess();
        }
    }
}
