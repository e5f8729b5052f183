package dev.ratelimit.core.metrics;

import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Where the engine records what it decides (docs/metrics.md), implemented by {@code ratelimit-micrometer} and
 * {@code ratelimit-opentelemetry}. Every instrument is looked up once, when the application deploys, and
 * kept beside the limit it counts: recording is an increment, with no lookup and no allocation.
 *
 * <p>Attributes are few and bounded by the deployment: limit names, plans, outcomes, a store name. Never a
 * partition, key, principal or path.
 */
public interface RateLimitMetrics {

    /** Instrument names and attributes, as docs/metrics.md lists them. */
    String REQUESTS = "ratelimit.requests";
    String STORE_DURATION = "ratelimit.store.duration";
    String COUNTS = "ratelimit.counts";
    String COUNTS_MAX = "ratelimit.counts.max";
    /** How long calls waited for their permits (limits that wait), seconds, by {@value #POLICY}. */
    String WAIT = "ratelimit.wait";
    String POLICY = "ratelimit.policy";
    String OUTCOME = "ratelimit.outcome";
    String PLAN = "ratelimit.plan";
    String STORE = "ratelimit.store";
    /** The {@value #PLAN} of callers in no plan. */
    String NO_PLAN = "none";

    /**
     * The histogram buckets of {@value #STORE_DURATION}, for every metrics library: from 10 µs (the in-process
     * store decides in well under that) to 2.5 s (past any sensible {@code ratelimit.store.timeout-millis}), so
     * that a quantile can tell a healthy shared store's round trip (sub-millisecond on a LAN) from a timeout.
     */
    List<Duration> STORE_DURATION_BUCKETS = List.of(
            Duration.ofNanos(10_000), Duration.ofNanos(50_000), Duration.ofNanos(100_000), Duration.ofNanos(250_000),
            Duration.ofNanos(500_000), Duration.ofMillis(1), Duration.ofNanos(2_500_000), Duration.ofMillis(5),
            Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100),
            Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2_500));

    /**
     * The histogram buckets of {@value #WAIT}: from 1 ms to a minute, the waits of calls to other services that a
     * partner's limit spaces out.
     */
    List<Duration> WAIT_BUCKETS = List.of(
            Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50),
            Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
            Duration.ofMillis(2_500), Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30),
            Duration.ofSeconds(60));

    /** The outcome of one limit for one call. */
    enum Outcome {
        /** The limit spent (a request or a charge). */
        ALLOWED("allowed"),
        /** The limit refused the call. */
        REFUSED("refused"),
        /** A limit in shadow mode would have refused; the call went on. */
        SHADOW_REFUSED("shadow_refused"),
        /** Let through without counting (the in-process store was full). */
        UNCOUNTED("uncounted"),
        /** The store could not decide (failure or timeout). */
        FAILED("failed");

        private final String label;

        Outcome(String label) {
            this.label = label;
        }

        /** The attribute value. */
        public String label() {
            return label;
        }
    }

    /** How a store call ended, for {@value #STORE_DURATION}. */
    enum StoreOutcome {
        DECIDED("decided"), FAILED("failed"), TIMEOUT("timeout");

        private final String label;

        StoreOutcome(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** A monotonic counter. */
    @FunctionalInterface
    interface Counter {
        void increment();
    }

    /** A histogram of durations. */
    @FunctionalInterface
    interface Timer {
        void record(long nanos);
    }

    /** Records nothing. */
    RateLimitMetrics NONE = new RateLimitMetrics() {
        @Override
        public Counter requests(String policy, Outcome outcome, String plan) {
            return () -> { };
        }

        @Override
        public Timer storeDuration(String store, StoreOutcome outcome) {
            return nanos -> { };
        }

        @Override
        public void counts(LongSupplier counts, long max) {
        }

        @Override
        public Timer waited(String policy) {
            return nanos -> { };
        }

        @Override
        public boolean isEnabled() {
            return false;
        }
    };

    /** The counter of {@value #REQUESTS} for one limit, outcome and plan ({@value #NO_PLAN} for no plan). */
    Counter requests(String policy, Outcome outcome, String plan);

    /** The timer of {@value #STORE_DURATION} for one store and outcome. */
    Timer storeDuration(String store, StoreOutcome outcome);

    /** Publishes the gauges {@value #COUNTS} (read when collected) and {@value #COUNTS_MAX}. */
    void counts(LongSupplier counts, long max);

    /**
     * The timer of {@value #WAIT} for one limit: how long a call that waited for its permits waited (a call that
     * waited is {@code allowed} in {@value #REQUESTS}). Default: records nothing.
     */
    default Timer waited(String policy) {
        return nanos -> { };
    }

    // ------------------------------------------------------------------ slices (docs/stores.md, "Exact or sliced")

    /** Requests of a sliced limit, by where they were decided ({@value #DECIDED}: {@code home} or {@code store}). */
    String SLICE_REQUESTS = "ratelimit.slices.requests";
    /** Slices taken from the store (one store call each), by {@value #POLICY}. */
    String SLICES_TAKEN = "ratelimit.slices.taken";
    /** Permits of slices given back to the store unused, by {@value #POLICY}. */
    String SLICE_PERMITS_RETURNED = "ratelimit.slices.returned";
    /** Where a request of a sliced limit was decided: {@code home} (from a slice, in memory) or {@code store}. */
    String DECIDED = "ratelimit.decided";

    /** A counter that grows by an amount. */
    @FunctionalInterface
    interface Tally {
        void add(long amount);
    }

    /**
     * The counter of {@value #SLICE_REQUESTS} for one limit: requests decided at home ({@code atHome}) or at the
     * store. Default: records nothing.
     */
    default Counter sliceRequests(String policy, boolean atHome) {
        return () -> { };
    }

    /** The counter of {@value #SLICES_TAKEN} for one limit. Default: records nothing. */
    default Counter slicesTaken(String policy) {
        return () -> { };
    }

    /** The counter of {@value #SLICE_PERMITS_RETURNED} for one limit. Default: records nothing. */
    default Tally slicePermitsReturned(String policy) {
        return amount -> { };
    }

    // ------------------------------------------------------------------

    /** False when nothing is recorded: then the engine does not even read the clock for durations. */
    default boolean isEnabled() {
        return true;
    }

    // ------------------------------------------------------------------ what operators watch (docs/metrics.md)

    /**
     * Allowed requests that left less than a fifth of their limit ({@link #nearLimit(long, long)}), by
     * {@value #POLICY} and {@value #PLAN}: a limit coming close before callers are refused. A subset of
     * {@value #REQUESTS}' {@code allowed}.
     */
    String NEAR_LIMIT = "ratelimit.requests.near_limit";
    /**
     * Refusals this instance answered itself, from a refusal of the shared store it remembers, by {@value #POLICY}
     * and {@value #PLAN}: a subset of {@value #REQUESTS}' {@code refused}.
     */
    String REFUSED_AT_HOME = "ratelimit.requests.refused_at_home";
    /** A gauge by {@value #STORE}: 1 while the store's outage breaker is open (calls go without it), else 0. */
    String BREAKER_OPEN = "ratelimit.store.breaker.open";

    /**
     * True when an allowed request that left {@code remaining} of {@code limit} permits counts as near the limit:
     * less than a fifth of it left ({@code remaining * 5 < limit}). No allocation.
     */
    static boolean nearLimit(long remaining, long limit) {
        return remaining * 5 < limit;
    }

    /** The counter of {@value #NEAR_LIMIT} for one limit and plan. Default: records nothing. */
    default Counter nearLimit(String policy, String plan) {
        return () -> { };
    }

    /** The counter of {@value #REFUSED_AT_HOME} for one limit and plan. Default: records nothing. */
    default Counter refusedAtHome(String policy, String plan) {
        return () -> { };
    }

    /**
     * Publishes the gauge {@value #BREAKER_OPEN} of one store, read when collected: {@code open} says whether its
     * outage breaker is open now. Default: publishes nothing.
     */
    default void breaker(String store, BooleanSupplier open) {
    }
}
