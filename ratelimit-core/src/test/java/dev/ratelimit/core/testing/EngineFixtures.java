package dev.ratelimit.core.testing;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.engine.DeclaredLimit;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * What tests of the engine's users share (the metrics modules): settings from key/value pairs, a declared
 * limit, and two stores that fail in the two ways the engine's failure policy handles.
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
