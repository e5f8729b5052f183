package dev.ratelimit.opentelemetry;

import static dev.ratelimit.core.testing.EngineFixtures.beanMethod;
import static dev.ratelimit.core.testing.EngineFixtures.decideNow;
import static dev.ratelimit.core.testing.EngineFixtures.failing;
import static dev.ratelimit.core.testing.EngineFixtures.limit;
import static dev.ratelimit.core.testing.EngineFixtures.resourceMethod;
import static dev.ratelimit.core.testing.EngineFixtures.settings;
import static dev.ratelimit.core.testing.EngineFixtures.silent;
import static dev.ratelimit.core.testing.EngineFixtures.spendNow;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitCaller;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitStoreException;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.binding.NamedLimit;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.core.engine.TestCaller;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.core.testing.ManualClock;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.MetricDataType;
import io.opentelemetry.sdk.metrics.data.PointData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The rate-limit metrics in the OpenTelemetry API, through the engine, read back from the SDK with an in-memory reader:
 * the instruments, their kinds, units and attributes, and that nothing but limit names, outcomes, plans and the
 * store's name is ever an attribute.
 */
class OpenTelemetryRateLimitMetricsTest {

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
    void allowedAndRefusedAreCountedByLimitOutcomeAndPlan() {
        RateLimitEngine engine = engine("ratelimit.plans", "gold", "ratelimit.plans.gold.limits.default.permit-limit", "10");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));

        for (int i = 0; i < 4; i++) {
            decide(engine, limits, TestCaller.user("bob"));
        }
        decide(engine, limits, TestCaller.user("alice", "gold"));

        assertThat(requests()).containsOnly(
                Map.entry("default/allowed/none", 3L),
                Map.entry("default/refused/none", 1L),
                Map.entry("default/allowed/gold", 1L));
    }

    @Test
    void theInstrumentsHaveTheSpecifiedNamesKindsAndUnits() {
        InProcessRateLimitStore store = new InProcessRateLimitStore(50, clock);
        RateLimitEngine engine = RateLimitEngine.builder(settings("ratelimit.max-tracked-partitions", "50"), store)
                .metrics(metrics).clock(clock).build();
        store.register(metrics);
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));
        for (int i = 0; i < 7; i++) {
            decide(engine, limits, "partition-" + i);
        }

        Map<String, MetricData> byName = reader.collectAllMetrics().stream()
                .collect(Collectors.toMap(MetricData::getName, m -> m));

        assertThat(byName).as("near the limit has no point yet: each partition left 2 of 3").containsOnlyKeys(
                RateLimitMetrics.REQUESTS, RateLimitMetrics.STORE_DURATION, RateLimitMetrics.COUNTS,
                RateLimitMetrics.COUNTS_MAX, RateLimitMetrics.BREAKER_OPEN);
        MetricData requests = byName.get(RateLimitMetrics.REQUESTS);
        assertThat(requests.getType()).isEqualTo(MetricDataType.LONG_SUM);
        assertThat(requests.getLongSumData().isMonotonic()).isTrue();
        assertThat(requests.getLongSumData().getAggregationTemporality()).isEqualTo(AggregationTemporality.CUMULATIVE);
        assertThat(requests.getInstrumentationScopeInfo().getName()).isEqualTo("dev.ratelimit");

        MetricData duration = byName.get(RateLimitMetrics.STORE_DURATION);
        assertThat(duration.getType()).isEqualTo(MetricDataType.HISTOGRAM);
        assertThat(duration.getUnit()).isEqualTo("s");
        HistogramPointData decided = duration.getHistogramData().getPoints().iterator().next();
        assertThat(decided.getAttributes()).isEqualTo(Attributes.of(
                AttributeKey.stringKey(RateLimitMetrics.STORE), "in-process",
                AttributeKey.stringKey(RateLimitMetrics.OUTCOME), "decided"));
        assertThat(decided.getCount()).isEqualTo(7);
        assertThat(decided.getBoundaries()).as("seconds, not the SDK's millisecond defaults")
                .isEqualTo(OpenTelemetryRateLimitMetrics.DURATION_BUCKETS);
        assertThat(decided.getMax()).isLessThan(1.0);

        assertThat(gauge(byName.get(RateLimitMetrics.COUNTS))).isEqualTo(7);
        assertThat(gauge(byName.get(RateLimitMetrics.COUNTS_MAX))).isEqualTo(50);
    }

    @Test
    void aCallThatWaitedIsAllowedAndItsWaitIsAHistogramInSecondsByLimit() {
        RateLimitEngine engine = engine();
        BoundLimits limits = engine.binder().bind(beanMethod("Partner.send()", limit(
                new RateLimitPolicy("partner", 1, 8, RateLimitAlgorithm.STRICT_WINDOW), 10_000, RateLimitPer.APPLICATION)));

        decide(engine, limits, "p");
        assertThat(decide(engine, limits, "q").waitNanos()).isEqualTo(9_000_000_000L);

        MetricData waits = reader.collectAllMetrics().stream()
                .filter(m -> m.getName().equals(RateLimitMetrics.WAIT)).findFirst().orElseThrow();
        assertThat(waits.getType()).isEqualTo(MetricDataType.HISTOGRAM);
        assertThat(waits.getUnit()).isEqualTo("s");
        HistogramPointData point = waits.getHistogramData().getPoints().iterator().next();
        assertThat(point.getAttributes()).isEqualTo(Attributes.of(AttributeKey.stringKey(RateLimitMetrics.POLICY), "partner"));
        assertThat(point.getCount()).as("only the call that waited").isEqualTo(1);
        assertThat(point.getSum()).isEqualTo(9.0);
        assertThat(requests()).containsEntry("partner/allowed/none", 2L);
    }

    @Test
    void shadowRefusalsAndUncountedRequestsHaveTheirOwnOutcomes() {
        RateLimitEngine engine = RateLimitEngine.builder(
                settings("ratelimit.limits.default.mode", "shadow", "ratelimit.max-tracked-partitions", "1"),
                new InProcessRateLimitStore(1, clock)).metrics(metrics).clock(clock).build();
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 1, 60)));

        decide(engine, limits, "a");
        decide(engine, limits, "a");
        decide(engine, limits, "b");

        assertThat(requests()).containsOnly(
                Map.entry("default/allowed/none", 1L),
                Map.entry("default/shadow_refused/none", 1L),
                Map.entry("default/uncounted/none", 1L));
    }

    @Test
    void aFailingStoreIsCountedFailedPerLimitAndTimedAsFailed() {
        RateLimitEngine engine = RateLimitEngine.builder(settings(), failing()).metrics(metrics).build();
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("module", 100, 60), limit("default", 3, 60)));

        assertThatThrownBy(() -> decide(engine, limits, "p")).isInstanceOf(RateLimitStoreException.class);

        Collection all = new Collection(reader.collectAllMetrics());
        assertThat(all.requests()).containsOnly(Map.entry("module/failed/none", 1L), Map.entry("default/failed/none", 1L));
        assertThat(all.durations()).containsOnly(Map.entry("failing/failed", 1L));
    }

    @Test
    void aStoreThatNeverAnswersIsTimedAsTimeoutAndWithAllowIsCountedFailedOnly() {
        RateLimitEngine engine = RateLimitEngine.builder(
                settings("ratelimit.store.timeout-millis", "20", "ratelimit.store.on-failure", "allow"), silent())
                .metrics(metrics).build();
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));

        assertThat(decide(engine, limits, "p").allowed()).isTrue();

        Collection all = new Collection(reader.collectAllMetrics());
        assertThat(all.requests()).containsOnly(Map.entry("default/failed/none", 1L));
        assertThat(all.durations()).containsOnly(Map.entry("silent/timeout", 1L));
        assertThat(all.durationSum("silent/timeout")).isGreaterThanOrEqualTo(0.019);
    }

    @Test
    void noPartitionKeyPrincipalOrCallSiteEverBecomesAnAttribute() {
        RateLimitEngine engine = engine("ratelimit.partition-header", "X-Api-Key", "ratelimit.plans", "gold",
                "ratelimit.plans.gold.limits.default.permit-limit", "10",
                "ratelimit.limits.items.permit-limit", "50", "ratelimit.limits.items.window-seconds", "60");
        BoundLimits all = engine.binder().bindResourceMethod(resourceMethod("GET /todos TodoResource.all()", limit("module", 100, 60), limit("default", 3, 60))).transport();
        BoundLimits one = engine.binder().bindResourceMethod(resourceMethod("GET /todos/{id} TodoResource.one(long)", limit("module", 100, 60))).transport();
        BoundLimits export = engine.binder().bind(beanMethod("ExportService.export()", limit("export", 1, 10)));
        NamedLimit items = engine.binder().named("items");

        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 600; i++) {
            String key = "key-" + i + "-/todos/" + i;
            String user = "user-" + i;
            RateLimitCaller caller = switch (i % 4) {
                case 0 -> TestCaller.withHeader("X-Api-Key", key);
                case 1 -> TestCaller.user(user);
                case 2 -> TestCaller.user(user, "gold");
                default -> TestCaller.anonymous();
            };
            seen.add(key);
            seen.add(user);
            RequestLedger ledger = engine.ledger(caller, null);
            seen.add(ledger.partition());
            decideNow(engine, ledger, i % 3 == 0 ? one : all);
            decideNow(engine, ledger, export);
            spendNow(engine, ledger, items, 1 + i % 3, i % 5 == 0);
            clock.advanceMillis(7);
        }

        Map<Set<String>, Set<String>> valuesByKeySet = new HashMap<>();
        for (MetricData metric : reader.collectAllMetrics()) {
            for (PointData point : metric.getData().getPoints()) {
                Set<String> keys = new TreeSet<>();
                point.getAttributes().forEach((key, value) -> {
                    keys.add(key.getKey());
                    assertThat(seen).as("attribute %s=%s of %s", key, value, metric.getName()).doesNotContain(value.toString());
                });
                Set<String> values = valuesByKeySet.computeIfAbsent(keys, k -> new TreeSet<>());
                point.getAttributes().forEach((key, value) -> values.add(value.toString()));
            }
        }
        assertThat(valuesByKeySet).containsOnlyKeys(
                Set.of(RateLimitMetrics.POLICY, RateLimitMetrics.OUTCOME, RateLimitMetrics.PLAN),
                Set.of(RateLimitMetrics.STORE, RateLimitMetrics.OUTCOME),
                Set.of(RateLimitMetrics.POLICY, RateLimitMetrics.PLAN), // near the limit
                Set.of(RateLimitMetrics.STORE), // the store's breaker
                Set.of()); // the gauge of the in-process store's counts, which the engine registers: no attributes
        assertThat(valuesByKeySet.get(Set.of(RateLimitMetrics.POLICY, RateLimitMetrics.OUTCOME, RateLimitMetrics.PLAN)))
                .containsExactlyInAnyOrder("module", "default", "export", "items", "allowed", "refused", "none", "gold");
        assertThat(valuesByKeySet.get(Set.of(RateLimitMetrics.STORE))).containsExactly("in-process");
        assertThat(valuesByKeySet.get(Set.of(RateLimitMetrics.STORE, RateLimitMetrics.OUTCOME)))
                .containsExactlyInAnyOrder("in-process", "decided");
    }

    @Test
    void anIncrementWithItsAttributesBoundAtDeploymentAllocatesNothing() {
        RateLimitMetrics.Counter counter = metrics.requests("default", RateLimitMetrics.Outcome.ALLOWED, "none");
        for (int i = 0; i < 200_000; i++) { // warm up: compiled, so the loop below measures the increment alone
            counter.increment();
        }
        long before = allocatedBytes();
        for (int i = 0; i < 100_000; i++) {
            counter.increment();
        }
        long allocated = allocatedBytes() - before;

        // one object per increment would be 1.6 MB at least; what remains is the JIT's own noise, if anything
        assertThat(allocated).as("bytes allocated by 100000 increments").isLessThan(16 * 1_000);
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean())
                .getCurrentThreadAllocatedBytes();
    }

    @Test
    void aNoopOpenTelemetryIsNotEnabledAndRecordsNothing() {
        OpenTelemetryRateLimitMetrics none = new OpenTelemetryRateLimitMetrics(OpenTelemetry.noop());

        assertThat(none.isEnabled()).isFalse();
        none.requests("default", RateLimitMetrics.Outcome.ALLOWED, "none").increment();
        none.storeDuration("in-process", RateLimitMetrics.StoreOutcome.DECIDED).record(1);
        none.counts(() -> 1, 2);
        assertThat(metrics.isEnabled()).isTrue();
    }

    @Test
    void closingUnregistersTheGauges() {
        metrics.counts(() -> 3, 5);
        assertThat(reader.collectAllMetrics()).extracting(MetricData::getName)
                .contains(RateLimitMetrics.COUNTS, RateLimitMetrics.COUNTS_MAX);

        metrics.close();

        assertThat(reader.collectAllMetrics()).extracting(MetricData::getName)
                .doesNotContain(RateLimitMetrics.COUNTS, RateLimitMetrics.COUNTS_MAX);
    }

    // ---------------------------------------------------------------- helpers

    /** The {@code ratelimit.requests} points, as {@code policy/outcome/plan -> value}. */
    private Map<String, Long> requests() {
        return new Collection(reader.collectAllMetrics()).requests();
    }

    /** One collection of every metric. */
    private record Collection(java.util.Collection<MetricData> all) {

        Map<String, Long> requests() {
            Map<String, Long> values = new TreeMap<>();
            metric(RateLimitMetrics.REQUESTS).ifPresent(m -> {
                for (LongPointData point : m.getLongSumData().getPoints()) {
                    values.put(attribute(point, RateLimitMetrics.POLICY) + "/" + attribute(point, RateLimitMetrics.OUTCOME)
                            + "/" + attribute(point, RateLimitMetrics.PLAN), point.getValue());
                }
            });
            return values;
        }

        Map<String, Long> durations() {
            Map<String, Long> counts = new TreeMap<>();
            metric(RateLimitMetrics.STORE_DURATION).ifPresent(m -> {
                for (HistogramPointData point : m.getHistogramData().getPoints()) {
                    counts.put(attribute(point, RateLimitMetrics.STORE) + "/" + attribute(point, RateLimitMetrics.OUTCOME),
                            point.getCount());
                }
            });
            return counts;
        }

        double durationSum(String storeAndOutcome) {
            return metric(RateLimitMetrics.STORE_DURATION).orElseThrow().getHistogramData().getPoints().stream()
                    .filter(p -> (attribute(p, RateLimitMetrics.STORE) + "/" + attribute(p, RateLimitMetrics.OUTCOME))
                            .equals(storeAndOutcome))
                    .findFirst().orElseThrow().getSum();
        }

        private Optional<MetricData> metric(String name) {
            return all.stream().filter(m -> m.getName().equals(name)).findFirst();
        }

        private static String attribute(PointData point, String key) {
            return point.getAttributes().get(AttributeKey.stringKey(key));
        }
    }

    private static long gauge(MetricData gauge) {
        assertThat(gauge.getType()).isEqualTo(MetricDataType.LONG_GAUGE);
        return gauge.getLongGaugeData().getPoints().iterator().next().getValue();
    }

    private RateLimitEngine engine(String... config) {
        return RateLimitEngine.builder(settings(config),
                        new InProcessRateLimitStore(InProcessRateLimitStore.DEFAULT_MAX_TRACKED_PARTITIONS, clock))
                .metrics(metrics).clock(clock).build();
    }

    private static RateLimitDecision decide(RateLimitEngine engine, BoundLimits limits, String partition) {
        return decideNow(engine, engine.ledger(partition), limits);
    }

    private static RateLimitDecision decide(RateLimitEngine engine, BoundLimits limits, RateLimitCaller caller) {
        return decideNow(engine, engine.ledger(caller, null), limits);
    }

}
