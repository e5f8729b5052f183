package dev.ratelimit.redis;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One application instance, for {@link TwoInstancesTest}: its own JVM, its own store and Lettuce client.
 * Prints {@code ready} once connected, waits for a line on stdin (so that the instances start together),
 * sends its requests all at once, {@code requests} on a limit of each algorithm, and prints
 * {@code admitted=<n>,<n>,<n>} (in the order of {@link RateLimitAlgorithm#values()}).
 *
 * <p>Arguments: Redis URI, partition, permit limit, requests per algorithm.
 */
public final class CountingInstance {

    private CountingInstance() {
    }

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        String partition = args[1];
        int permitLimit = Integer.parseInt(args[2]);
        int requests = Integer.parseInt(args[3]);
        try (RedisRateLimitStore store = RedisRateLimitStore.builder(uri).timeout(Duration.ofSeconds(10)).build()) {
            if (!store.awaitConnection(Duration.ofSeconds(10))) {
                throw new IllegalStateException("no Redis at " + uri);
            }
            List<RateLimitRequest> limits = new ArrayList<>();
            for (RateLimitAlgorithm algorithm : RateLimitAlgorithm.values()) {
                // an hour: a bucket must not refill while the requests are under way
                RateLimitPolicy limit = new RateLimitPolicy("shared-" + algorithm.name().toLowerCase(java.util.Locale.ROOT),
                        permitLimit, 3600, algorithm);
                CountKey key = new CountKey(limit.name(), null, algorithm);
                limits.add(RateLimitRequest.of(store.bind(key), key, limit, 1, Kind.ACQUIRE));
            }
            System.out.println("ready");
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            List<List<CompletableFuture<RateLimitDecision>>> inFlight = new ArrayList<>();
            for (RateLimitRequest limit : limits) {
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
                    allowed += decision.get(30, TimeUnit.SECONDS).allowed() ? 1 : 0;
                }
                admitted.add(Integer.toString(allowed));
            }
            System.out.println(admitted);
            System.out.flush();
        }
    }
}
