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
    /** How long calls waited for this limit's permits. */
    final RateLimitMetrics.Timer waited;

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
        this.waited = metrics.waited(key.name());
    }

    void count(Outcome outcome) {
        counters[outcome.ordinal()].increment();
    }

    boolean shadow() {
        return mode == RateLimitMode.SHADOW;
    }
}
