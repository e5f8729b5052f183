package dev.ratelimit.benchmarks.support;

import dev.ratelimit.benchmarks.peers.Peers;
import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.binding.NamedLimit;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.LimitResolver;
import dev.ratelimit.core.declaration.MethodDeclarations;
import dev.ratelimit.core.engine.DecisionStages;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Ours, set up the way the integrations set it up at deployment: policies, count keys bound to the store,
 * requests built once; an engine on the in-process store with default settings, its limits bound once
 * ({@link RateLimitEngine#bind}). A benchmark then measures only what a request does.
 */
public final class Ours {

    private Ours() {
    }

    /** A policy that the benchmarks never exhaust: {@link Peers#PERMITS} per {@link Peers#WINDOW}. */
    public static RateLimitPolicy policy(String name, RateLimitAlgorithm algorithm) {
        return new RateLimitPolicy(name, Peers.PERMITS, (int) Peers.WINDOW.toSeconds(), algorithm);
    }

    /** A sliding-window policy (the default algorithm) of {@link #policy(String, RateLimitAlgorithm)}. */
    public static RateLimitPolicy policy(String name) {
        return policy(name, RateLimitAlgorithm.SLIDING_WINDOW);
    }

    /** The store's request for {@code policies}, each of cost 1, bound to {@code store} (as the engine does at deployment). */
    public static RateLimitRequest request(InProcessRateLimitStore store, RateLimitPolicy... policies) {
        RateLimitRequest.Builder builder = RateLimitRequest.builder();
        for (RateLimitPolicy policy : policies) {
            CountKey key = new CountKey(policy.name(), null, policy.algorithm());
            builder.add(store.bind(key), key, policy, 1, Kind.ACQUIRE);
        }
        return builder.build();
    }

    /** The counts {@code store} keeps now, as its {@code ratelimit.counts} gauge reads them. */
    public static long countsKept(InProcessRateLimitStore store) {
        LongSupplier[] gauge = new LongSupplier[1];
        store.register(new RateLimitMetrics() {
            @Override
            public Counter requests(String policy, Outcome outcome, String plan) {
                return RateLimitMetrics.NONE.requests(policy, outcome, plan);
            }

            @Override
            public Timer storeDuration(String storeName, StoreOutcome outcome) {
                return RateLimitMetrics.NONE.storeDuration(storeName, outcome);
            }

            @Override
            public void counts(LongSupplier counts, long max) {
                gauge[0] = counts;
            }
        });
        return gauge[0].getAsLong();
    }

    /** An engine on a new in-process store (default settings: 10 000 counts at most, no plans), recording into {@code metrics}. */
    public static RateLimitEngine engine(RateLimitMetrics metrics) {
        return engine(new InProcessRateLimitStore(), metrics);
    }

    /** An engine on {@code store} with default settings. */
    public static RateLimitEngine engine(InProcessRateLimitStore store, RateLimitMetrics metrics) {
        return RateLimitEngine.builder(RateLimitSettings.of(Map.of()), store).metrics(metrics).build();
    }

    /** What the deciding filter runs per request with the in-process store: the engine's one entry point, read. */
    public static RateLimitDecision decideNow(RateLimitEngine engine, RequestLedger ledger, BoundLimits limits) {
        return DecisionStages.join(engine.decide(ledger, limits, 1));
    }

    /** What {@code RateLimiter.acquire(name, permits)} (or {@code charge}) runs: {@code permits} of a named limit. */
    public static RateLimitDecision spendNow(RateLimitEngine engine, RequestLedger ledger, NamedLimit limit, int permits,
                                             boolean charge) {
        return DecisionStages.join(engine.decide(ledger, charge ? limit.charge() : limit.acquire(), permits));
    }

    /** {@code policies} bound as the limits of one call site, each of cost 1. */
    public static BoundLimits bind(RateLimitEngine engine, String where, RateLimitPolicy... policies) {
        List<LimitDeclaration> declared = new ArrayList<>();
        for (RateLimitPolicy policy : policies) {
            declared.add(LimitDeclaration.builder(DeclaredOn.METHOD, where).policy(policy).build());
        }
        return engine.binder().bind(LimitResolver.resolve(null, MethodDeclarations.beanMethod(where, List.of(), declared)));
    }
}
