package dev.ratelimit.core.guard;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/** One call site's request: whether it is sliced, its slices by partition, its counters. */
final class SliceSite {
    final boolean sliced;
    final boolean perApplication;
    final long shortestStep;
    final RateLimitRequest request;
    final ConcurrentHashMap<String, Slice> byPartition = new ConcurrentHashMap<>();
    private final RateLimitMetrics.Counter[] home;
    private final RateLimitMetrics.Counter[] atStore;
    private final RateLimitMetrics.Counter[] taken;
    private final RateLimitMetrics.Tally[] returned;

    SliceSite(RateLimitRequest request, boolean sliced, RateLimitMetrics metrics) {
        this.request = request;
        this.sliced = sliced;
        boolean perApplication = true;
        long shortest = Long.MAX_VALUE;
        int n = request.size();
        home = new RateLimitMetrics.Counter[n];
        atStore = new RateLimitMetrics.Counter[n];
        taken = new RateLimitMetrics.Counter[n];
        returned = new RateLimitMetrics.Tally[n];
        for (int i = 0; i < n; i++) {
            perApplication &= request.key(i).perApplication();
            RateLimitPolicy policy = request.policy(i);
            if (policy.algorithm() != RateLimitAlgorithm.TOKEN_BUCKET) {
                shortest = Math.min(shortest, Slices.step(policy));
            }
            String name = policy.name();
            home[i] = metrics.sliceRequests(name, true);
            atStore[i] = metrics.sliceRequests(name, false);
            taken[i] = metrics.slicesTaken(name);
            returned[i] = metrics.slicePermitsReturned(name);
        }
        this.perApplication = perApplication;
        this.shortestStep = shortest;
    }

    /** The limit of the request that spends from the counts of (name, plan), or -1. */
    int indexOf(String name, String plan) {
        for (int i = 0; i < request.size(); i++) {
            CountKey key = request.key(i);
            if (key.name().equals(name) && Objects.equals(key.plan(), plan)) {
                return i;
            }
        }
        return -1;
    }

    void home() {
        for (RateLimitMetrics.Counter c : home) {
            c.increment();
        }
    }

    void atStore() {
        for (RateLimitMetrics.Counter c : atStore) {
            c.increment();
        }
    }

    void taken() {
        for (RateLimitMetrics.Counter c : taken) {
            c.increment();
        }
    }

    void returned(RateLimitDecision decision, int units) {
        for (int i = 0; i < returned.length; i++) {
            returned[i].add((long) decision.request().cost(i) * units);
        }
    }
}
