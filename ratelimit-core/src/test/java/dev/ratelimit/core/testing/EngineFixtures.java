package dev.ratelimit.core.testing;

import static dev.ratelimit.core.testing.EngineFixtures.spend;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.binding.NamedLimit;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.LimitResolver;
import dev.ratelimit.core.declaration.MethodDeclarations;
import dev.ratelimit.core.declaration.ResolvedLimits;
import dev.ratelimit.core.engine.DecisionStages;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * What tests of the engine and of its users share: settings from key/value pairs, declared limits and a method's
 * limits resolved from them, the engine's entry point read as the adapters read it, and two stores that fail in the
 * two ways the engine's failure policy handles.
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

    /** A limit declared on a method, cost 1. */
    public static LimitDeclaration limit(String name, int permitLimit, int windowSeconds) {
        return limit(new RateLimitPolicy(name, permitLimit, windowSeconds), 1);
    }

    /** A limit declared on a method, of {@code cost} permits per call. */
    public static LimitDeclaration limit(RateLimitPolicy policy, int cost) {
        return LimitDeclaration.builder(DeclaredOn.METHOD, "the test").policy(policy).cost(cost).build();
    }

    /** A limit declared on a method that may wait for its permits, and counts {@code per}. */
    public static LimitDeclaration limit(RateLimitPolicy policy, long maxWaitMillis, RateLimitPer per) {
        return LimitDeclaration.builder(DeclaredOn.METHOD, "the test").policy(policy).maxWaitMillis(maxWaitMillis)
                .per(per).build();
    }

    /**
     * The limits of a bean method named {@code where}, as the resolver makes them of {@code declared} (each put in
     * the list of its level).
     */
    public static ResolvedLimits beanMethod(String where, LimitDeclaration... declared) {
        return resolve(where, MethodDeclarations.Kind.BEAN_METHOD, declared);
    }

    /** The limits of a resource method named {@code where}: {@link #beanMethod}, the global and module levels too. */
    public static ResolvedLimits resourceMethod(String where, LimitDeclaration... declared) {
        return resolve(where, MethodDeclarations.Kind.RESOURCE_METHOD, declared);
    }

    private static ResolvedLimits resolve(String where, MethodDeclarations.Kind kind, LimitDeclaration... declared) {
        LimitDeclaration global = null;
        List<LimitDeclaration> module = new ArrayList<>();
        List<LimitDeclaration> classLevel = new ArrayList<>();
        List<LimitDeclaration> methodLevel = new ArrayList<>();
        for (LimitDeclaration d : declared) {
            switch (d.declaredOn()) {
                case GLOBAL -> global = d;
                case MODULE -> module.add(d);
                case CLASS -> classLevel.add(d);
                case METHOD -> methodLevel.add(d);
            }
        }
        return LimitResolver.resolve(global, new MethodDeclarations(where, kind, module, classLevel, methodLevel,
                List.of(), true));
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
