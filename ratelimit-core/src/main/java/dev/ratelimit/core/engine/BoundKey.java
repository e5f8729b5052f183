package dev.ratelimit.core.engine;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitMode;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.declaration.Counting;
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
    /** Whose count and what it counts; its {@code per} is the key's. */
    final Counting counting;
    /** Where the name was first bound with this plan: names the other side of an algorithm conflict. */
    final String firstWhere;
    final ShadowLog shadow;
    private final Counter[] counters;
    /** The sizing tag of its counts in the configuration it was bound with ({@link dev.ratelimit.core.RateLimitRequest#tag}). */
    final int tag;
    /** The partitions its limit name refused most (every plan together); touched by a refusal only. */
    final RefusalSummary refusals;
    /**
     * How long calls waited for this limit's permits: set when a call site that may wait binds the name (a limit that
     * never waits shows no such series); volatile, as a later deployment may set it while requests run.
     */
    private volatile RateLimitMetrics.Timer waited;

    BoundKey(CountKey key, Object handle, RateLimitMode mode, String firstWhere, ShadowLog shadow,
             RateLimitMetrics metrics) {
        this(key, handle, mode, new Counting(key.per(), false, null), firstWhere, shadow, counters(key, metrics), 0,
                new RefusalSummary(RefusalSummary.DEFAULT_CAPACITY));
    }

    /** Bound again with live values: the counters and the summary of the name stay those bound first. */
    BoundKey(CountKey key, Object handle, RateLimitMode mode, Counting counting, String firstWhere, ShadowLog shadow,
             Counter[] counters, int tag, RefusalSummary refusals) {
        this.key = key;
        this.handle = handle;
        this.mode = mode;
        this.counting = counting;
        this.firstWhere = firstWhere;
        this.shadow = shadow;
        this.counters = counters;
        this.tag = tag;
        this.refusals = refusals;
    }

    /** The metric counters of (name, plan), by outcome: looked up once. */
    static Counter[] counters(CountKey key, RateLimitMetrics metrics) {
        Outcome[] outcomes = Outcome.values();
        Counter[] counters = new Counter[outcomes.length];
        String plan = key.plan() == null ? RateLimitMetrics.NO_PLAN : key.plan();
        for (Outcome outcome : outcomes) {
            counters[outcome.ordinal()] = metrics.requests(key.name(), outcome, plan);
        }
        return counters;
    }

    Counter[] counters() {
        return counters;
    }

    /** A call site that may wait binds this name: from now on its waits are recorded. Under the binder's lock. */
    void mayWait(RateLimitMetrics.Timer timer) {
        waited = timer;
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

    /**
     * True for a limit per argument: left out of an allowed response's headers, which would tell anyone how many
     * failures another person's account has; a 429 it causes shows it.
     */
    boolean quiet() {
        return key.per() == RateLimitPer.ARGUMENT;
    }
}
