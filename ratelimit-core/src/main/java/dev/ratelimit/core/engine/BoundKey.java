package dev.ratelimit.core.engine;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitMode;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import dev.ratelimit.core.metrics.RateLimitMetrics.Counter;
import dev.ratelimit.core.metrics.RateLimitMetrics.Outcome;

/**
 * One (limit name, plan) as deployed: its counts' key, the store's handle on them, its mode, and its
 * metric counters, looked up once. Shared by every call site that declares the name. Immutable.
 */
final class BoundKey {

    final CountKey key;
    final Object handle;
    final RateLimitMode mode;
    /** Where the name was first bound with this plan: names the other side of an algorithm conflict. */
    final String firstWhere;
    final ShadowLog shadow;
    private final Counter[] counters;
    private final RateLimitMetrics metrics;
    /**
     * How long calls waited for this limit's permits: made when a call site that may wait binds the name (a limit that
     * never waits shows no such series); volatile, as a later deployment may make it while requests run.
     */
    private volatile RateLimitMetrics.Timer waited;

    BoundKey(CountKey key, Object handle, RateLimitMode mode, String firstWhere, ShadowLog shadow,
             RateLimitMetrics metrics) {
        this.key = key;
        this.handle = handle;
        this.mode = mode;
        this.firstWhere = firstWhere;
        this.shadow = shadow;
        Outcome[] outcomes = Outcome.values();
        this.counters = new Counter[outcomes.length];
        String plan = key.plan() == null ? RateLimitMetrics.NO_PLAN : key.plan();
        for (Outcome outcome : outcomes) {
            counters[outcome.ordinal()] = metrics.requests(key.name(), outcome, plan);
        }
        this.metrics = metrics;
    }

    /** A call site that may wait binds this name: from now on its waits are recorded. Under the binder's lock. */
    void mayWait() {
        if (waited == null) {
            waited = metrics.waited(key.name());
        }
    }

    /** Records how long a call waited for this limit's permits. */
    void waited(long nanos) {
        RateLimitMetrics.Timer timer = waited;
        if (timer != null) {
            timer.record(nanos);
        }
    }

    void count(Outcome outcome) {
        counters[outcome.ordinal()].increment();
    }

    boolean shadow() {
        return mode == RateLimitMode.SHADOW;
    }
}
