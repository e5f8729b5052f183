package dev.ratelimit.core.binding;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitMode;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.declaration.Counting;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import dev.ratelimit.core.metrics.RateLimitMetrics.Counter;
import dev.ratelimit.core.metrics.RateLimitMetrics.Outcome;

/**
 * One (limit name, plan) as deployed: its counts' key, the store's handle on them, its mode, and its
 * metric counters, looked up once. Shared by every call site that declares the name. Immutable. The library's
 * internals, public for the request path and the admin API: not an API.
 */
public final class BoundKey {

    /** Where {@link #counters} holds the counter of {@link RateLimitMetrics#NEAR_LIMIT}; the outcomes come first. */
    private static final int NEAR_LIMIT = Outcome.values().length;

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

    /** The metric counters of (name, plan), looked up once: by outcome, then {@link RateLimitMetrics#NEAR_LIMIT}. */
    static Counter[] counters(CountKey key, RateLimitMetrics metrics) {
        Outcome[] outcomes = Outcome.values();
        Counter[] counters = new Counter[NEAR_LIMIT + 1];
        String plan = key.plan() == null ? RateLimitMetrics.NO_PLAN : key.plan();
        for (Outcome outcome : outcomes) {
            counters[outcome.ordinal()] = metrics.requests(key.name(), outcome, plan);
        }
        counters[NEAR_LIMIT] = metrics.nearLimit(key.name(), plan);
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
    public void waited(long nanos) {
        RateLimitMetrics.Timer timer = waited;
        if (timer != null) {
            timer.record(nanos);
        }
    }

    /** Counts one decision of this limit in its metrics. */
    public void count(Outcome outcome) {
        counters[outcome.ordinal()].increment();
    }

    /**
     * Counts an allowed decision of this limit that left {@code remaining} of its {@code limit} permits in
     * {@link RateLimitMetrics#NEAR_LIMIT} when that is less than a fifth.
     */
    public void allowedLeaving(long remaining, long limit) {
        if (RateLimitMetrics.nearLimit(remaining, limit)) {
            counters[NEAR_LIMIT].increment();
        }
    }

    /** True when the limit is in shadow mode: it never refuses, and is never reported in the headers. */
    public boolean shadow() {
        return mode == RateLimitMode.SHADOW;
    }

    /**
     * The request that reads or restarts this key's counts by {@code policy} (the admin API), in the key's algorithm:
     * one permit, acquired.
     */
    public RateLimitRequest countRequest(RateLimitPolicy policy) {
        RateLimitPolicy counted = policy.algorithm() == key.algorithm() ? policy
                : policy.with(policy.permitLimit(), policy.windowSeconds(), key.algorithm());
        return RateLimitRequest.builder().add(handle, key, counted, 1, RateLimitRequest.Kind.ACQUIRE).tag(tag).build();
    }

    /** The limit refused a call counted in {@code partition}: the summary of the most refused holds it. */
    public void refused(String partition) {
        refusals.refused(partition);
    }

    /** The limit, in shadow mode, would have refused an allowed call: its log line says so, at most once a minute. */
    public void wouldHaveRefused() {
        shadow.wouldHaveRefused();
    }

    /**
     * True for a limit per argument: left out of an allowed response's headers, which would tell anyone how many
     * failures another person's account has; a 429 it causes shows it.
     */
    public boolean quiet() {
        return key.per() == RateLimitPer.ARGUMENT;
    }
}
