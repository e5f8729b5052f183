package dev.ratelimit.opentelemetry;

import dev.ratelimit.core.metrics.RateLimitMetrics;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.DoubleHistogramBuilder;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.MeterBuilder;
import io.opentelemetry.api.metrics.MeterProvider;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * The rate-limit metrics (docs/metrics.md) in the OpenTelemetry API. The {@link OpenTelemetry} recorded into is the
 * bean that MicroProfile Telemetry 2.0 provides ({@code @Inject OpenTelemetry}: Open Liberty's mpTelemetry-2.0,
 * Quarkus' quarkus-opentelemetry), else the global one ({@link GlobalOpenTelemetry}, as the OpenTelemetry Java agent
 * installs it). Enabled only when that one has a meter provider that is not the no-op one: MicroProfile
 * Telemetry's default ({@code otel.sdk.disabled=true}) and an unset global record nothing, and then
 * {@link #isEnabled()} is false and the engine does not even read the clock for durations.
 *
 * <p>The instruments are made once; the attributes of each (limit, outcome, plan) and (store, outcome) are
 * built once, when the engine binds a limit at deployment. A request adds to an instrument with attributes it
 * already holds.
 *
 * <p>Thread-safe: the meter and instruments are set once, before any is asked for; {@code gauges} is guarded
 * by itself.
 */
@ApplicationScoped
public class OpenTelemetryRateLimitMetrics implements RateLimitMetrics {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit");

    /** The instrumentation scope. */
    public static final String SCOPE = "dev.ratelimit";

    /**
     * The explicit bucket boundaries of {@value RateLimitMetrics#STORE_DURATION}, in seconds (the SDK's default
     * boundaries are meant for milliseconds): {@link RateLimitMetrics#STORE_DURATION_BUCKETS}.
     */
    public static final List<Double> DURATION_BUCKETS = STORE_DURATION_BUCKETS.stream()
            .map(bucket -> bucket.toNanos() / 1e9).toList();

    static final AttributeKey<String> POLICY_KEY = AttributeKey.stringKey(POLICY);
    static final AttributeKey<String> OUTCOME_KEY = AttributeKey.stringKey(OUTCOME);
    static final AttributeKey<String> PLAN_KEY = AttributeKey.stringKey(PLAN);
    static final AttributeKey<String> STORE_KEY = AttributeKey.stringKey(STORE);

    @Inject
    Instance<OpenTelemetry> openTelemetryBean;

    private Meter meter;
    private LongCounter requests;
    private DoubleHistogram storeDuration;
    private DoubleHistogram waits;
    private LongCounter nearLimit;
    private LongCounter refusedAtHome;
    private final List<AutoCloseable> gauges = new ArrayList<>();

    /** For CDI: the {@link OpenTelemetry} bean, else the global one, looked up when first used. */
    public OpenTelemetryRateLimitMetrics() {
    }

    /** Outside CDI: records into {@code openTelemetry} (when its meter provider is not the no-op one). */
    public OpenTelemetryRateLimitMetrics(OpenTelemetry openTelemetry) {
        use(Objects.requireNonNull(openTelemetry, "openTelemetry"), "the given OpenTelemetry");
    }

    @PostConstruct
    void findOpenTelemetry() {
        if (meter != null || openTelemetryBean == null) {
            return;
        }
        if (openTelemetryBean.isResolvable()) {
            use(openTelemetryBean.get(), "the OpenTelemetry bean");
            return;
        }
        if (openTelemetryBean.isAmbiguous()) {
            LOG.log(Level.WARNING, "ratelimit: several OpenTelemetry beans and none is the default; using the global "
                    + "OpenTelemetry instead");
        }
        OpenTelemetry global = global();
        if (global == null) {
            LOG.log(Level.DEBUG, "ratelimit: no OpenTelemetry bean and no global OpenTelemetry, so no metrics in OpenTelemetry");
            return;
        }
        use(global, "the global OpenTelemetry");
    }

    /**
     * The global instance when one is set (the Java agent's, or the application's {@code buildAndRegisterGlobal}),
     * without setting a no-op one as {@link GlobalOpenTelemetry#get()} would if none is (API 1.57+). An older API
     * has no way to ask: then {@code get()}, as libraries did before.
     */
    private static OpenTelemetry global() {
        try {
            return GlobalOpenTelemetry.isSet() ? GlobalOpenTelemetry.get() : null;
        } catch (NoSuchMethodError olderApi) {
            return GlobalOpenTelemetry.get();
        }
    }

    private void use(OpenTelemetry openTelemetry, String which) {
        MeterProvider provider = openTelemetry.getMeterProvider();
        if (provider == null || provider == MeterProvider.noop()) {
            LOG.log(Level.DEBUG, () -> "ratelimit: " + which + " records no metrics (its meter provider is the no-op one; "
                    + "with MicroProfile Telemetry set otel.sdk.disabled=false), so no metrics in OpenTelemetry");
            return;
        }
        MeterBuilder builder = provider.meterBuilder(SCOPE);
        String version = OpenTelemetryRateLimitMetrics.class.getPackage().getImplementationVersion();
        if (version != null) {
            builder.setInstrumentationVersion(version);
        }
        Meter made = builder.build();
        if (made.getClass() == MeterProvider.noop().get(SCOPE).getClass()) {
            // an SDK without a metric reader hands out the no-op meter (Payara's, by default): nothing would be exported
            LOG.log(Level.DEBUG, () -> "ratelimit: " + which + " has no metric reader (no exporter configured), so no "
                    + "metrics in OpenTelemetry");
            return;
        }
        requests = made.counterBuilder(REQUESTS)
                .setDescription("Rate-limit decisions: one per limit decided, by limit, outcome and plan")
                .setUnit("{request}")
                .build();
        DoubleHistogramBuilder histogram = made.histogramBuilder(STORE_DURATION)
                .setDescription("Time the rate-limit store took to decide, by store and outcome")
                .setUnit("s");
        try {
            histogram.setExplicitBucketBoundariesAdvice(DURATION_BUCKETS);
        } catch (NoSuchMethodError | AbstractMethodError olderApi) {
            // an API before 1.32: the SDK's default boundaries (views can still set them)
        }
        storeDuration = histogram.build();
        DoubleHistogramBuilder waited = made.histogramBuilder(WAIT)
                .setDescription("Time calls waited for their rate-limit permits, by limit")
                .setUnit("s");
        try {
            waited.setExplicitBucketBoundariesAdvice(WAIT_BUCKETS.stream().map(d -> d.toNanos() / 1e9).toList());
        } catch (NoSuchMethodError | AbstractMethodError olderApi) {
            // an API before 1.32: the SDK's default boundaries
        }
        waits = waited.build();
        nearLimit = made.counterBuilder(NEAR_LIMIT)
                .setDescription("Allowed rate-limit decisions that left less than a fifth of the limit, by limit and plan")
                .setUnit("{request}")
                .build();
        refusedAtHome = made.counterBuilder(REFUSED_AT_HOME)
                .setDescription("Rate-limit refusals answered by this instance from a remembered refusal of the store, "
                        + "by limit and plan")
                .setUnit("{request}")
                .build();
        meter = made;
        LOG.log(Level.DEBUG, () -> "ratelimit: metrics go to " + which);
    }

    /** True when the OpenTelemetry found records metrics. */
    @Override
    public boolean isEnabled() {
        return meter != null;
    }

    @Override
    public Counter requests(String policy, Outcome outcome, String plan) {
        if (meter == null) {
            return RateLimitMetrics.NONE.requests(policy, outcome, plan);
        }
        LongCounter counter = requests;
        Attributes attributes = Attributes.of(POLICY_KEY, policy, OUTCOME_KEY, outcome.label(), PLAN_KEY, plan);
        return () -> counter.add(1, attributes);
    }

    @Override
    public Timer storeDuration(String store, StoreOutcome outcome) {
        if (meter == null) {
            return RateLimitMetrics.NONE.storeDuration(store, outcome);
        }
        DoubleHistogram histogram = storeDuration;
        Attributes attributes = Attributes.of(STORE_KEY, store, OUTCOME_KEY, outcome.label());
        return nanos -> histogram.record(nanos / 1e9, attributes);
    }

    @Override
    public Timer waited(String policy) {
        if (meter == null) {
            return RateLimitMetrics.NONE.waited(policy);
        }
        DoubleHistogram histogram = waits;
        Attributes attributes = Attributes.of(POLICY_KEY, policy);
        return nanos -> histogram.record(nanos / 1e9, attributes);
    }

    // ------------------------------------------------------------------ slices (docs/stores.md, "Exact or sliced")

    private static final AttributeKey<String> DECIDED_KEY = AttributeKey.stringKey(DECIDED);

    @Override
    public Counter sliceRequests(String policy, boolean atHome) {
        if (meter == null) {
            return RateLimitMetrics.NONE.sliceRequests(policy, atHome);
        }
        LongCounter counter = meter.counterBuilder(SLICE_REQUESTS)
                .setDescription("Requests of a sliced limit, by limit and where they were decided (home or store)")
                .setUnit("{request}").build();
        Attributes attributes = Attributes.of(POLICY_KEY, policy, DECIDED_KEY, atHome ? "home" : "store");
        return () -> counter.add(1, attributes);
    }

    @Override
    public Counter slicesTaken(String policy) {
        if (meter == null) {
            return RateLimitMetrics.NONE.slicesTaken(policy);
        }
        LongCounter counter = meter.counterBuilder(SLICES_TAKEN)
                .setDescription("Slices of a shared count taken from the store (one store call each), by limit")
                .setUnit("{slice}").build();
        Attributes attributes = Attributes.of(POLICY_KEY, policy);
        return () -> counter.add(1, attributes);
    }

    @Override
    public Tally slicePermitsReturned(String policy) {
        if (meter == null) {
            return RateLimitMetrics.NONE.slicePermitsReturned(policy);
        }
        LongCounter counter = meter.counterBuilder(SLICE_PERMITS_RETURNED)
                .setDescription("Permits of slices given back to the store unused, by limit")
                .setUnit("{permit}").build();
        Attributes attributes = Attributes.of(POLICY_KEY, policy);
        return amount -> counter.add(amount, attributes);
    }

    // ------------------------------------------------------------------

    @Override
    public void counts(LongSupplier counts, long max) {
        if (meter == null) {
            return;
        }
        Objects.requireNonNull(counts, "counts");
        AutoCloseable held = meter.gaugeBuilder(COUNTS).ofLongs()
                .setDescription("Counts the in-process rate-limit store holds")
                .setUnit("{count}")
                .buildWithCallback(measurement -> measurement.record(counts.getAsLong()));
        AutoCloseable capacity = meter.gaugeBuilder(COUNTS_MAX).ofLongs()
                .setDescription("Most counts the in-process rate-limit store keeps (ratelimit.max-tracked-partitions)")
                .setUnit("{count}")
                .buildWithCallback(measurement -> measurement.record(max));
        synchronized (gauges) {
            gauges.add(held);
            gauges.add(capacity);
        }
    }

    // ------------------------------------------------------------------ what operators watch

    @Override
    public Counter nearLimit(String policy, String plan) {
        if (meter == null) {
            return RateLimitMetrics.NONE.nearLimit(policy, plan);
        }
        LongCounter counter = nearLimit;
        Attributes attributes = Attributes.of(POLICY_KEY, policy, PLAN_KEY, plan);
        return () -> counter.add(1, attributes);
    }

    @Override
    public Counter refusedAtHome(String policy, String plan) {
        if (meter == null) {
            return RateLimitMetrics.NONE.refusedAtHome(policy, plan);
        }
        LongCounter counter = refusedAtHome;
        Attributes attributes = Attributes.of(POLICY_KEY, policy, PLAN_KEY, plan);
        return () -> counter.add(1, attributes);
    }

    @Override
    public void breaker(String store, BooleanSupplier open) {
        if (meter == null) {
            return;
        }
        Objects.requireNonNull(open, "open");
        Attributes attributes = Attributes.of(STORE_KEY, store);
        AutoCloseable gauge = meter.gaugeBuilder(BREAKER_OPEN).ofLongs()
                .setDescription("1 while the rate-limit store's outage breaker is open (calls go without the store), else 0")
                .buildWithCallback(measurement -> measurement.record(open.getAsBoolean() ? 1 : 0, attributes));
        synchronized (gauges) {
            gauges.add(gauge);
        }
    }

    /** Unregisters the gauges' callbacks: they hold the store, which is going away with the application. */
    @PreDestroy
    void close() {
        List<AutoCloseable> all;
        synchronized (gauges) {
            all = new ArrayList<>(gauges);
            gauges.clear();
        }
        for (AutoCloseable gauge : all) {
            try {
                gauge.close();
            } catch (Exception | LinkageError e) {
                LOG.log(Level.DEBUG, "ratelimit: could not unregister a gauge", e);
            }
        }
    }

    @Override
    public String toString() {
        return "OpenTelemetryRateLimitMetrics(" + (meter == null ? "disabled" : "enabled") + ")";
    }
}
