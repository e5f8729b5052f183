package dev.ratelimit.core.engine;

import dev.ratelimit.core.metrics.RateLimitMetrics;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A {@link RateLimitMetrics} that remembers every count and every duration recorded, and how often an
 * instrument was looked up (the engine must look them up at deployment only).
 */
public final class RecordingMetrics implements RateLimitMetrics {

    private final Map<String, AtomicLong> requests = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> durations = new ConcurrentHashMap<>();
    private final AtomicInteger lookups = new AtomicInteger();

    @Override
    public Counter requests(String policy, Outcome outcome, String plan) {
        lookups.incrementAndGet();
        AtomicLong counter = requests.computeIfAbsent(policy + "/" + outcome.label() + "/" + plan, k -> new AtomicLong());
        return counter::incrementAndGet;
    }

    @Override
    public Timer storeDuration(String store, StoreOutcome outcome) {
        lookups.incrementAndGet();
        AtomicLong timer = durations.computeIfAbsent(store + "/" + outcome.label(), k -> new AtomicLong());
        return nanos -> timer.incrementAndGet();
    }

    @Override
    public void counts(LongSupplier counts, long max) {
    }

    /** The {@code ratelimit.requests} counter of (policy, outcome, plan); plan {@code none} for no plan. */
    public long count(String policy, String outcome, String plan) {
        AtomicLong counter = requests.get(policy + "/" + outcome + "/" + plan);
        return counter == null ? 0 : counter.get();
    }

    /** The {@code ratelimit.requests} counter of (policy, outcome) for callers in no plan. */
    public long count(String policy, String outcome) {
        return count(policy, outcome, NO_PLAN);
    }

    /** Every non-zero {@code ratelimit.requests} counter, as {@code policy/outcome/plan -> count}. */
    public Map<String, Long> nonZero() {
        Map<String, Long> all = new java.util.TreeMap<>();
        requests.forEach((k, v) -> {
            if (v.get() != 0) {
                all.put(k, v.get());
            }
        });
        return all;
    }

    /** How many durations were recorded for (store, outcome). */
    public long durations(String store, String outcome) {
        AtomicLong timer = durations.get(store + "/" + outcome);
        return timer == null ? 0 : timer.get();
    }

    /** How many instruments were looked up so far. */
    public int lookups() {
        return lookups.get();
    }
}
