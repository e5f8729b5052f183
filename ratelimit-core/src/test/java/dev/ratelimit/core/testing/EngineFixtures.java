package dev.ratelimit.core.testing;

import static dev.ratelimit.core.testing.EngineFixtures.spend;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.engine.BoundLimits;
import dev.ratelimit.core.engine.DecisionStages;
import dev.ratelimit.core.engine.DeclaredLimit;
import dev.ratelimit.core.engine.NamedLimit;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * What tests of the engine and of its users share: settings from key/value pairs, a declared limit, the
 * engine's entry point read as the adapters read it, and two stores that fail in the two ways the engine's
 * failure policy handles.
 */
public final class EngineFixtures {

    private EngineFixtures() {
    }

    /** Settings from {@code key, value, key, value...}. */
    public static RateLimitSettings settings(String... keysAndValues) {
        Map<String, String> values = new TreeMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            values.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return RateLimitSettings.of(values);
    }

    /** A limit declared by an annotation, cost 1. */
    public static DeclaredLimit limit(String name, int permitLimit, int windowSeconds) {
        return new DeclaredLimit(new RateLimitPolicy(name, permitLimit, windowSeconds), 1, "@RateLimit");
    }

    /** What an adapter on a thread that may wait runs: the engine's one entry point for a call site, read. */
    public static RateLimitDecision decideNow(RateLimitEngine engine, RequestLedger ledger, BoundLimits limits) {
        return DecisionStages.join(engine.decide(ledger, limits, 1));
    }

    /** What the programmatic API runs: {@code permits} of a named limit, acquired or charged, read. */
    public static RateLimitDecision spendNow(RateLimitEngine engine, RequestLedger ledger, NamedLimit limit, int permits,
                                             boolean charge) {
        return DecisionStages.join(spend(engine, ledger, limit, permits, charge));
    }

    /** {@link #spendNow}, as the engine answers it: now or later. */
    public static CompletableFuture<RateLimitDecision> spend(RateLimitEngine engine, RequestLedger ledger, NamedLimit limit,
                                                             int permits, boolean charge) {
        return engine.decide(ledger, charge ? limit.charge() : limit.acquire(), permits);
    }

    /** The counts {@code store} keeps now, as its {@code ratelimit.counts} gauge reads them. */
    public static long countsKept(RateLimitStore store) {
        LongSupplier[] gauge = new LongSupplier[1];
        store.register(new RateLimitMetrics() {
            @Override
            public Counter requests(String policy, Outcome outcome, String plan) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Timer storeDuration(String storeName, StoreOutcome outcome) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void counts(LongSupplier counts, long max) {
                gauge[0] = counts;
            }
        });
        if (gauge[0] == null) {
            throw new AssertionError(store + " registered no ratelimit.counts gauge");
        }
        return gauge[0].getAsLong();
    }

    /** A store whose every call fails at once. */
    public static RateLimitStore failing() {
        return new AnsweringStore("failing", () -> CompletableFuture.failedFuture(new IllegalStateException("down")));
    }

    /** A store that never answers. */
    public static RateLimitStore silent() {
        return new AnsweringStore("silent", CompletableFuture::new);
    }

    /** A store that answers every acquire with a new stage from {@code answer}. */
    private record AnsweringStore(String storeName, Supplier<CompletableFuture<RateLimitDecision>> answer)
            implements RateLimitStore {
        @Override
        public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
            return answer.get();
        }

        @Override
        public CompletionStage<Void> release(RateLimitDecision decision) {
            return CompletableFuture.completedFuture(null);
        }
    }
}
