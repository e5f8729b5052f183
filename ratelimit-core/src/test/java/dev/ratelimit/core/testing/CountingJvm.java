package dev.ratelimit.core.testing;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.RateLimitStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * What one application instance in a JVM of its own does in the tests where instances in several JVMs count together
 * on one shared store: its requests, sent all at once straight to its store, on a limit of each algorithm, and what
 * it prints of them. The same for every store that counts across instances; each store's main class makes the store
 * and hands it over.
 */
public final class CountingJvm {

    private CountingJvm() {
    }

    /**
     * Sends {@code requests} requests of {@code partition} on a limit of {@code permitLimit} permits per hour of each
     * algorithm, all at once, then waits for their answers.
     *
     * @param seconds how long each answer may take before the instance fails
     * @return {@code admitted=<n>,<n>,<n>}: how many each limit admitted, in the order of
     *         {@link RateLimitAlgorithm#values()}
     */
    public static String admitted(RateLimitStore store, String partition, int permitLimit, int requests, long seconds)
            throws Exception {
        List<RateLimitRequest> limits = new ArrayList<>();
        for (RateLimitAlgorithm algorithm : RateLimitAlgorithm.values()) {
            // an hour: a bucket must not refill while the requests are under way
            RateLimitPolicy limit = new RateLimitPolicy("shared-" + algorithm.name().toLowerCase(Locale.ROOT),
                    permitLimit, 3600, algorithm);
            CountKey key = new CountKey(limit.name(), null, algorithm);
            limits.add(RateLimitRequest.of(store.bind(key), key, limit, 1, Kind.ACQUIRE));
        }
        List<List<CompletableFuture<RateLimitDecision>>> inFlight = new ArrayList<>();
        for (int k = 0; k < limits.size(); k++) {
            inFlight.add(new ArrayList<>(requests));
        }
        for (int i = 0; i < requests; i++) {
            for (int k = 0; k < limits.size(); k++) {
                inFlight.get(k).add(store.acquire(partition, limits.get(k), 1).toCompletableFuture());
            }
        }
        StringJoiner admitted = new StringJoiner(",", "admitted=", "");
        for (List<CompletableFuture<RateLimitDecision>> decisions : inFlight) {
            int allowed = 0;
            for (CompletableFuture<RateLimitDecision> decision : decisions) {
                allowed += decision.get(seconds, TimeUnit.SECONDS).allowed() ? 1 : 0;
            }
            admitted.add(Integer.toString(allowed));
        }
        return admitted.toString();
    }
}
