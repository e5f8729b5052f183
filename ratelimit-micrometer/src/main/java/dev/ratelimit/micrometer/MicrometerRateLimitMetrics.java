package dev.ratelimit.micrometer;

import dev.ratelimit.core.metrics.RateLimitMetrics;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * The rate-limit metrics (docs/metrics.md) in Micrometer, in the application's {@link MeterRegistry} bean: the one that
 * quarkus-micrometer provides, or any the application produces. Enabled only when exactly one registry
 * resolves for {@code @Inject MeterRegistry} (several without a default: none is chosen, and a warning says
 * so); otherwise {@link #isEnabled()} is false and the engine records nothing.
 *
 * <p>In Prometheus text, {@value RateLimitMetrics#REQUESTS} is {@code ratelimit_requests_total}, its
 * attributes {@code ratelimit_policy}, {@code ratelimit_outcome}, {@code ratelimit_plan};
 * {@value RateLimitMetrics#STORE_DURATION} is {@code ratelimit_store_duration_seconds} (count, sum, max and
 * the buckets of {@link #DURATION_BUCKETS}); the gauges {@code ratelimit_counts} and {@code ratelimit_counts_max};
 * {@code ratelimit_requests_near_limit_total} and {@code ratelimit_requests_refused_at_home_total} (by policy and
 * plan), the gauge {@code ratelimit_store_breaker_open} (by store).
 *
 * <p>Every meter is registered when the engine binds a limit (at deployment) and kept by the engine: a
 * request increments a counter it already holds. Meters are removed from the registry when the application
 * stops, so that a registry that outlives it (a redeployment) holds no gauge of a store that is gone.
 *
 * <p>Thread-safe: the registry is set once, before any meter is asked for; {@code registered} is guarded by itself.
 */
@ApplicationScoped
public class MicrometerRateLimitMetrics implements RateLimitMetrics {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit");

    /** The histogram buckets of {@value RateLimitMetrics#STORE_DURATION}: {@link RateLimitMetrics#STORE_DURATION_BUCKETS}. */
    public static final List<Duration> DURATION_BUCKETS = STORE_DURATION_BUCKETS;

    @Inject
    Instance<MeterRegistry> registries;

    private MeterRegistry registry;
    private final List<Meter> registered = new ArrayList<>();

    /** For CDI: the registry is the application's {@link MeterRegistry} bean, looked up when first used. */
    public MicrometerRateLimitMetrics() {
    }

    /** Outside CDI: records into {@code registry}. */
    public MicrometerRateLimitMetrics(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    @PostConstruct
    void findRegistry() {
        if (registry != null || registries == null) {
            return;
        }
        if (registries.isResolvable()) {
            registry = registries.get();
            LOG.log(Level.DEBUG, () -> "ratelimit: metrics go to the Micrometer registry " + describe(registry));
        } else if (registries.isAmbiguous()) {
            StringJoiner found = new StringJoiner(", ");
            for (MeterRegistry candidate : registries) {
                found.add(describe(candidate));
            }
            LOG.log(Level.WARNING, "ratelimit: no metrics in Micrometer: several MeterRegistry beans (" + found
                    + ") and none is the default; make the one to use an enabled @Alternative or the only @Default one");
        } else {
            LOG.log(Level.DEBUG, "ratelimit: no MeterRegistry bean, so no metrics in Micrometer");
        }
    }

    /** True when a registry was found: then every instrument records into it. */
    @Override
    public boolean isEnabled() {
        return registry != null;
    }

    /** The registry recorded into, or null when none was found. */
    public MeterRegistry registry() {
        return registry;
    }

    @Override
    public Counter requests(String policy, Outcome outcome, String plan) {
        if (registry == null) {
            return RateLimitMetrics.NONE.requests(policy, outcome, plan);
        }
        return counter(REQUESTS, "Rate-limit decisions: one per limit decided, by limit, outcome and plan",
                POLICY, policy, OUTCOME, outcome.label(), PLAN, plan)::increment;
    }

    @Override
    public Timer storeDuration(String store, StoreOutcome outcome) {
        if (registry == null) {
            return RateLimitMetrics.NONE.storeDuration(store, outcome);
        }
        io.micrometer.core.instrument.Timer timer = io.micrometer.core.instrument.Timer.builder(STORE_DURATION)
                .description("Time the rate-limit store took to decide, by store and outcome")
                .tag(STORE, store)
                .tag(OUTCOME, outcome.label())
                .serviceLevelObjectives(DURATION_BUCKETS.toArray(new Duration[0]))
                .register(registry);
        keep(timer);
        return nanos -> timer.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public Timer waited(String policy) {
        if (registry == null) {
            return RateLimitMetrics.NONE.waited(policy);
        }
        io.micrometer.core.instrument.Timer timer = io.micrometer.core.instrument.Timer.builder(WAIT)
                .description("Time calls waited for their rate-limit permits, by limit")
                .tag(POLICY, policy)
                .serviceLevelObjectives(WAIT_BUCKETS.toArray(new Duration[0]))
                .register(registry);
        keep(timer);
        return nanos -> timer.record(nanos, TimeUnit.NANOSECONDS);
    }

    // ------------------------------------------------------------------ slices (docs/stores.md, "Exact or sliced")

    @Override
    public Counter sliceRequests(String policy, boolean atHome) {
        if (registry == null) {
            return RateLimitMetrics.NONE.sliceRequests(policy, atHome);
        }
        return counter(SLICE_REQUESTS,
                "Requests of a sliced limit, by limit and where they were decided (home or store)", POLICY, policy, DECIDED, atHome ? "home" : "store")::increment;
    }

    @Override
    public Counter slicesTaken(String policy) {
        if (registry == null) {
            return RateLimitMetrics.NONE.slicesTaken(policy);
        }
        return counter(SLICES_TAKEN,
                "Slices of a shared count taken from the store (one store call each), by limit", POLICY, policy)::increment;
    }

    @Override
    public Tally slicePermitsReturned(String policy) {
        if (registry == null) {
            return RateLimitMetrics.NONE.slicePermitsReturned(policy);
        }
        return counter(SLICE_PERMITS_RETURNED, "Permits of slices given back to the store unused, by limit",
                POLICY, policy)::increment;
    }

    // ------------------------------------------------------------------

    @Override
    public void counts(LongSupplier counts, long max) {
        if (registry == null) {
            return;
        }
        Objects.requireNonNull(counts, "counts");
        // strongly referenced: the engine keeps no reference to this supplier, and Micrometer's default is weak
        keep(Gauge.builder(COUNTS, counts, LongSupplier::getAsLong)
                .description("Counts the in-process rate-limit store holds")
                .strongReference(true)
                .register(registry));
        keep(Gauge.builder(COUNTS_MAX, () -> max)
                .description("Most counts the in-process rate-limit store keeps (ratelimit.max-tracked-partitions)")
                .register(registry));
    }

    // ------------------------------------------------------------------ what operators watch

    @Override
    public Counter nearLimit(String policy, String plan) {
        if (registry == null) {
            return RateLimitMetrics.NONE.nearLimit(policy, plan);
        }
        return counter(NEAR_LIMIT,
                "Allowed rate-limit decisions that left less than a fifth of the limit, by limit and plan", POLICY, policy, PLAN, plan)::increment;
    }

    @Override
    public Counter refusedAtHome(String policy, String plan) {
        if (registry == null) {
            return RateLimitMetrics.NONE.refusedAtHome(policy, plan);
        }
        return counter(REFUSED_AT_HOME, "Rate-limit refusals answered by this instance from a remembered refusal of the "
                + "store, by limit and plan", POLICY, policy, PLAN, plan)::increment;
    }

    @Override
    public void breaker(String store, BooleanSupplier open) {
        if (registry == null) {
            return;
        }
        Objects.requireNonNull(open, "open");
        // strongly referenced, as the counts: nothing else keeps the supplier
        keep(Gauge.builder(BREAKER_OPEN, open, o -> o.getAsBoolean() ? 1 : 0)
                .description("1 while the rate-limit store's outage breaker is open (calls go without the store), else 0")
                .tag(STORE, store)
                .strongReference(true)
                .register(registry));
    }

    /** A counter registered (and kept, to be removed on close) with {@code tags}, key and value pairs. */
    private io.micrometer.core.instrument.Counter counter(String name, String description, String... tags) {
        io.micrometer.core.instrument.Counter counter = io.micrometer.core.instrument.Counter.builder(name)
                .description(description)
                .tags(tags)
                .register(registry);
        keep(counter);
        return counter;
    }

    /** Removes the meters registered here: the application is going away, the registry may not be. */
    @PreDestroy
    void close() {
        List<Meter> meters;
        synchronized (registered) {
            meters = new ArrayList<>(registered);
            registered.clear();
        }
        if (registry == null || meters.isEmpty()) {
            return;
        }
        try {
            for (Meter meter : meters) {
                registry.remove(meter);
            }
        } catch (RuntimeException e) {
            // the registry's own bean may be destroyed first (its context is ending): nothing is left to clean
            LOG.log(Level.DEBUG, "ratelimit: could not remove the metrics from the Micrometer registry", e);
        }
    }

    private void keep(Meter meter) {
        synchronized (registered) {
            registered.add(meter);
        }
    }

    private static String describe(MeterRegistry registry) {
        return registry.getClass().getSimpleName().isEmpty() ? registry.getClass().getName()
                : registry.getClass().getSimpleName();
    }

    @Override
    public String toString() {
        return "MicrometerRateLimitMetrics(" + (registry == null ? "disabled" : describe(registry)) + ")";
    }
}
