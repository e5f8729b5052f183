package dev.ratelimit.micrometer;

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
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.RateLimitStoreException;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.binding.NamedLimit;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.core.engine.TestCaller;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.core.testing.ManualClock;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The rate-limit metrics in Micrometer, through the engine: what a request records, under which names and tags, and
 * that nothing but limit names, outcomes, plans and the store's name ever becomes a tag.
 */
class MicrometerRateLimitMetricsTest {

    private final ManualClock clock = new ManualClock();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MicrometerRateLimitMetrics metrics = new MicrometerRateLimitMetrics(registry);

    @Test
    void allowedAndRefusedAreCountedByLimitOutcomeAndPlan() {
        RateLimitEngine engine = engine("ratelimit.plans", "gold", "ratelimit.plans.gold.limits.default.permit-limit", "10");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));

        for (int i = 0; i < 4; i++) {
            decide(engine, limits, TestCaller.user("bob"));
        }
        decide(engine, limits, TestCaller.user("alice", "gold"));

        assertThat(count("default", "allowed", "none")).isEqualTo(3);
        assertThat(count("default", "refused", "none")).isEqualTo(1);
        assertThat(count("default", "allowed", "gold")).isEqualTo(1);
        assertThat(count("default", "refused", "gold")).isZero();
    }

    @Test
    void aCallThatWaitedIsAllowedAndItsWaitIsRecordedInSecondsByLimit() {
        RateLimitEngine engine = builder(new InProcessRateLimitStore(100, clock), metrics).build();
        BoundLimits limits = engine.binder().bind(beanMethod("Partner.send()", limit(
                new RateLimitPolicy("partner", 1, 8, RateLimitAlgorithm.STRICT_WINDOW), 10_000, RateLimitPer.APPLICATION)));

        assertThat(decide(engine, limits, "p").waitNanos()).isZero();
        assertThat(decide(engine, limits, "q").waitNanos()).as("one window after the end of the first step: 9 s")
                .isEqualTo(9_000_000_000L);

        assertThat(count("partner", "allowed", "none")).isEqualTo(2);
        io.micrometer.core.instrument.Timer waited = registry.get(RateLimitMetrics.WAIT).tag(RateLimitMetrics.POLICY, "partner")
                .timer();
        assertThat(waited.count()).as("only the call that waited").isEqualTo(1);
        assertThat(waited.totalTime(java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(9.0);
    }

    /**
     * The series of docs/metrics.md's instruments, named and labelled exactly so. Micrometer's Prometheus registry (the
     * Java client) writes every sample as a Java double, {@code 1.0}, where the Go client writes {@code 1}: the same
     * sample to every Prometheus parser. The embedded example's {@code /metrics} writes integral values as Go
     * does, so the line appears there character for character (its own test).
     */
    @Test
    void aRefusalReadsInPrometheusTextAsTheSpecificationShowsIt() {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        RateLimitEngine engine = builder(new InProcessRateLimitStore(100, clock), new MicrometerRateLimitMetrics(prometheus)).build();
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 1, 60)));

        decide(engine, limits, "p");
        decide(engine, limits, "p");

        String text = prometheus.scrape();
        Map<String, Double> samples = samples(text);
        assertThat(samples).as(text).containsEntry(
                "ratelimit_requests_total{ratelimit_outcome=\"refused\",ratelimit_plan=\"none\",ratelimit_policy=\"default\"}", 1.0);
        assertThat(text.lines()).as("Micrometer's spelling of the same sample").contains(
                "ratelimit_requests_total{ratelimit_outcome=\"refused\",ratelimit_plan=\"none\",ratelimit_policy=\"default\"} 1.0");
        assertThat(samples)
                .containsEntry("ratelimit_requests_total{ratelimit_outcome=\"allowed\",ratelimit_plan=\"none\",ratelimit_policy=\"default\"}", 1.0)
                .containsEntry("ratelimit_requests_total{ratelimit_outcome=\"shadow_refused\",ratelimit_plan=\"none\",ratelimit_policy=\"default\"}", 0.0)
                .containsEntry("ratelimit_requests_total{ratelimit_outcome=\"uncounted\",ratelimit_plan=\"none\",ratelimit_policy=\"default\"}", 0.0)
                .containsEntry("ratelimit_requests_total{ratelimit_outcome=\"failed\",ratelimit_plan=\"none\",ratelimit_policy=\"default\"}", 0.0)
                .containsEntry("ratelimit_store_duration_seconds_count{ratelimit_outcome=\"decided\",ratelimit_store=\"in-process\"}", 2.0)
                .containsEntry("ratelimit_store_duration_seconds_count{ratelimit_outcome=\"failed\",ratelimit_store=\"in-process\"}", 0.0)
                .containsEntry("ratelimit_store_duration_seconds_count{ratelimit_outcome=\"timeout\",ratelimit_store=\"in-process\"}", 0.0)
                .containsEntry("ratelimit_store_duration_seconds_bucket{ratelimit_outcome=\"decided\",ratelimit_store=\"in-process\",le=\"+Inf\"}", 2.0);
        assertThat(text).contains("# TYPE ratelimit_requests_total counter", "# TYPE ratelimit_store_duration_seconds histogram");
        assertThat(samples.keySet().stream().filter(series -> series.startsWith("ratelimit_store_duration_seconds_bucket{")
                && series.contains("ratelimit_outcome=\"decided\"")))
                .as("one bucket per boundary and +Inf:%n%s", text)
                .hasSize(MicrometerRateLimitMetrics.DURATION_BUCKETS.size() + 1);
    }

    @Test
    void shadowRefusalsAndUncountedRequestsHaveTheirOwnOutcomes() {
        RateLimitEngine engine = builder(new InProcessRateLimitStore(1, clock), metrics)
                .build(settings("ratelimit.limits.default.mode", "shadow", "ratelimit.max-tracked-partitions", "1"));
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 1, 60)));

        decide(engine, limits, "a");
        decide(engine, limits, "a");
        decide(engine, limits, "b");

        assertThat(count("default", "allowed", "none")).isEqualTo(1);
        assertThat(count("default", "shadow_refused", "none")).isEqualTo(1);
        assertThat(count("default", "uncounted", "none")).isEqualTo(1);
        assertThat(count("default", "refused", "none")).isZero();
    }

    @Test
    void aFailingStoreIsCountedFailedPerLimitAndTimedAsFailed() {
        RateLimitEngine engine = builder(failing(), metrics).build(settings());
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("module", 100, 60), limit("default", 3, 60)));

        assertThatThrownBy(() -> decide(engine, limits, "p")).isInstanceOf(RateLimitStoreException.class);

        assertThat(count("module", "failed", "none")).isEqualTo(1);
        assertThat(count("default", "failed", "none")).isEqualTo(1);
        assertThat(registry.get(RateLimitMetrics.STORE_DURATION).tags(RateLimitMetrics.OUTCOME, "failed").timer().count())
                .isEqualTo(1);
        assertThat(registry.get(RateLimitMetrics.STORE_DURATION).tag(RateLimitMetrics.STORE, failing().storeName())
                .tags(RateLimitMetrics.OUTCOME, "failed").timer().count()).isEqualTo(1);
    }

    @Test
    void aStoreThatNeverAnswersIsTimedAsTimeoutAndWithAllowIsCountedFailedOnly() {
        RateLimitEngine engine = builder(silent(), metrics)
                .build(settings("ratelimit.store.timeout-millis", "20", "ratelimit.store.on-failure", "allow"));
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));

        RateLimitDecision letThrough = decide(engine, limits, "p");

        assertThat(letThrough.allowed()).isTrue();
        assertThat(count("default", "failed", "none")).isEqualTo(1);
        assertThat(count("default", "allowed", "none")).as("the store decided nothing").isZero();
        assertThat(count("default", "uncounted", "none")).as("counted once, as failed").isZero();
        io.micrometer.core.instrument.Timer timeout = registry.get(RateLimitMetrics.STORE_DURATION)
                .tags(RateLimitMetrics.OUTCOME, "timeout").timer();
        assertThat(timeout.count()).isEqualTo(1);
        assertThat(timeout.totalTime(java.util.concurrent.TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(19);
    }

    @Test
    void theGaugesReadTheStoreWhenCollectedAndShowItsCapacity() {
        InProcessRateLimitStore store = new InProcessRateLimitStore(50, clock);
        RateLimitEngine engine = builder(store, metrics).build(settings("ratelimit.max-tracked-partitions", "50"));
        store.register(metrics);
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));
        System.gc(); // the supplier is held by the gauge alone: it must survive a collection

        for (int i = 0; i < 7; i++) {
            decide(engine, limits, "partition-" + i);
        }

        assertThat(registry.get(RateLimitMetrics.COUNTS).gauge().value()).isEqualTo(7);
        assertThat(registry.get(RateLimitMetrics.COUNTS_MAX).gauge().value()).isEqualTo(50);
    }

    @Test
    void noPartitionKeyPrincipalOrCallSiteEverBecomesATag() {
        RateLimitEngine engine = engine("ratelimit.partition-header", "X-Api-Key", "ratelimit.plans", "gold",
                "ratelimit.plans.gold.limits.default.permit-limit", "10",
                "ratelimit.limits.items.permit-limit", "50", "ratelimit.limits.items.window-seconds", "60");
        BoundLimits all = engine.binder().bindResourceMethod(resourceMethod("GET /todos TodoResource.all()", limit("module", 100, 60), limit("default", 3, 60))).transport();
        BoundLimits one = engine.binder().bindResourceMethod(resourceMethod("GET /todos/{id} TodoResource.one(long)", limit("module", 100, 60))).transport();
        BoundLimits export = engine.binder().bind(beanMethod("ExportService.export()", limit("export", 1, 10)));
        NamedLimit items = engine.binder().named("items");
        Set<Meter.Id> atDeployment = ids();

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

        assertThat(ids()).as("no meter is made by a request").isEqualTo(atDeployment);
        Map<Set<String>, Set<String>> valuesByKeySet = new HashMap<>();
        for (Meter meter : registry.getMeters()) {
            // SimpleMeterRegistry shows a timer's buckets as a meter of their own, tagged with each boundary
            List<Tag> tags = meter.getId().getTags().stream().filter(tag -> {
                if (!tag.getKey().equals("le")) {
                    return true;
                }
                assertThat(meter.getId().getName()).isIn(RateLimitMetrics.STORE_DURATION + ".histogram",
                        RateLimitMetrics.WAIT + ".histogram");
                List<java.time.Duration> buckets = meter.getId().getName().startsWith(RateLimitMetrics.WAIT)
                        ? RateLimitMetrics.WAIT_BUCKETS : MicrometerRateLimitMetrics.DURATION_BUCKETS;
                assertThat(Double.parseDouble(tag.getValue()) * 1e9)
                        .isIn(buckets.stream().map(d -> (double) d.toNanos()).toArray());
                return false;
            }).toList();
            Set<String> keys = tags.stream().map(Tag::getKey).collect(Collectors.toCollection(java.util.TreeSet::new));
            valuesByKeySet.computeIfAbsent(keys, k -> new java.util.TreeSet<>())
                    .addAll(tags.stream().map(Tag::getValue).toList());
            for (Tag tag : tags) {
                assertThat(seen).as("tag %s of %s", tag, meter.getId()).doesNotContain(tag.getValue());
            }
        }
        assertThat(valuesByKeySet).containsOnlyKeys(
                Set.of(RateLimitMetrics.POLICY, RateLimitMetrics.OUTCOME, RateLimitMetrics.PLAN),
                Set.of(RateLimitMetrics.STORE, RateLimitMetrics.OUTCOME),
                Set.of(RateLimitMetrics.POLICY, RateLimitMetrics.PLAN), // near the limit
                Set.of(RateLimitMetrics.STORE), // the store's breaker
                Set.of()); // the gauge of the in-process store's counts, which the engine registers: no attributes
        assertThat(valuesByKeySet.get(Set.of())).isEmpty();
        assertThat(valuesByKeySet.get(Set.of(RateLimitMetrics.POLICY, RateLimitMetrics.OUTCOME, RateLimitMetrics.PLAN)))
                .containsExactlyInAnyOrder("module", "default", "export", "items",
                        "allowed", "refused", "shadow_refused", "uncounted", "failed", "none", "gold");
        assertThat(valuesByKeySet.get(Set.of(RateLimitMetrics.STORE, RateLimitMetrics.OUTCOME)))
                .containsExactlyInAnyOrder("in-process", "decided", "failed", "timeout");
        assertThat(valuesByKeySet.get(Set.of(RateLimitMetrics.POLICY, RateLimitMetrics.PLAN)))
                .containsExactlyInAnyOrder("module", "default", "export", "items", "none", "gold");
        assertThat(valuesByKeySet.get(Set.of(RateLimitMetrics.STORE))).containsExactly("in-process");
        assertThat(count("default", "refused", "none")).isPositive();
        assertThat(count("default", "allowed", "gold")).isPositive();
        assertThat(count("export", "refused", "none")).isPositive();
        assertThat(count("items", "allowed", "gold")).isPositive();
    }

    @Test
    void anIncrementAllocatesNothing() {
        RateLimitMetrics.Counter counter = metrics.requests("default", RateLimitMetrics.Outcome.ALLOWED, "none");
        RateLimitMetrics.Timer timer = metrics.storeDuration("in-process", RateLimitMetrics.StoreOutcome.DECIDED);
        for (int i = 0; i < 200_000; i++) { // warm up: compiled, so the loop below measures the increment alone
            counter.increment();
            timer.record(1_000);
        }
        long before = allocatedBytes();
        for (int i = 0; i < 100_000; i++) {
            counter.increment();
        }
        long allocated = allocatedBytes() - before;

        // one object per increment would be 1.6 MB at least; what remains is the JIT's own noise, if anything
        assertThat(allocated).as("bytes allocated by 100000 increments").isLessThan(16 * 1_000);
    }

    /**
     * Without a registry the module records nowhere: not in Micrometer's global registry (where a careless
     * fallback would put the meters), nor in any registry added to it, however many decisions the engine makes.
     */
    @Test
    void withoutARegistryNothingIsEnabledAndNothingRecords() {
        SimpleMeterRegistry global = new SimpleMeterRegistry();
        Metrics.addRegistry(global);
        try {
            MicrometerRateLimitMetrics none = new MicrometerRateLimitMetrics();
            InProcessRateLimitStore store = new InProcessRateLimitStore(100, clock);
            RateLimitEngine engine = builder(store, none).build();
            store.register(none);
            BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 1, 60)));

            assertThat(decide(engine, limits, "p").allowed()).isTrue();
            assertThat(decide(engine, limits, "p").allowed()).isFalse();
            none.requests("default", RateLimitMetrics.Outcome.ALLOWED, "none").increment();
            none.storeDuration("in-process", RateLimitMetrics.StoreOutcome.DECIDED).record(1);

            assertThat(none.isEnabled()).isFalse();
            assertThat(none.registry()).isNull();
            assertThat(global.getMeters()).as("meters recorded through Micrometer's global registry").isEmpty();
            assertThat(Metrics.globalRegistry.getMeters()).as("Micrometer's global registry")
                    .noneMatch(meter -> meter.getId().getName().startsWith("ratelimit"));
            assertThat(registry.getMeters()).as("the test's own registry, which this engine was not given").isEmpty();
        } finally {
            Metrics.removeRegistry(global);
        }
    }

    @Test
    void closingRemovesTheMetersRegisteredHere() {
        MeterRegistry shared = new SimpleMeterRegistry();
        shared.counter("application.own").increment();
        MicrometerRateLimitMetrics bound = new MicrometerRateLimitMetrics(shared);
        bound.requests("default", RateLimitMetrics.Outcome.ALLOWED, "none");
        bound.counts(() -> 1, 2);

        bound.close();

        assertThat(shared.getMeters()).extracting(m -> m.getId().getName()).containsExactly("application.own");
    }

    // ---------------------------------------------------------------- helpers

    private double count(String policy, String outcome, String plan) {
        io.micrometer.core.instrument.Counter counter = registry.find(RateLimitMetrics.REQUESTS)
                .tags(RateLimitMetrics.POLICY, policy, RateLimitMetrics.OUTCOME, outcome, RateLimitMetrics.PLAN, plan)
                .counter();
        assertThat(counter).as("the counter of (%s, %s, %s), bound at deployment", policy, outcome, plan).isNotNull();
        return counter.count();
    }

    /** Every sample of a Prometheus text, as series (name and labels, as written) to value. */
    static Map<String, Double> samples(String text) {
        Map<String, Double> samples = new TreeMap<>();
        text.lines().filter(line -> !line.isBlank() && !line.startsWith("#")).forEach(line -> {
            int space = line.lastIndexOf(' ');
            samples.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
        });
        return samples;
    }

    private Set<Meter.Id> ids() {
        return registry.getMeters().stream().map(Meter::getId).collect(Collectors.toSet());
    }

    private RateLimitEngine engine(String... config) {
        return builder(new InProcessRateLimitStore(InProcessRateLimitStore.DEFAULT_MAX_TRACKED_PARTITIONS, clock), metrics)
                .build(settings(config));
    }

    private EngineBuilder builder(RateLimitStore store, RateLimitMetrics recorder) {
        return settings -> RateLimitEngine.builder(settings, store).metrics(recorder).clock(clock).build();
    }

    @FunctionalInterface
    private interface EngineBuilder {
        RateLimitEngine build(RateLimitSettings settings);

        default RateLimitEngine build() {
            return build(settings());
        }
    }

    private static RateLimitDecision decide(RateLimitEngine engine, BoundLimits limits, String partition) {
        return decideNow(engine, engine.ledger(partition), limits);
    }

    private static RateLimitDecision decide(RateLimitEngine engine, BoundLimits limits, RateLimitCaller caller) {
        return decideNow(engine, engine.ledger(caller, null), limits);
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }
}
