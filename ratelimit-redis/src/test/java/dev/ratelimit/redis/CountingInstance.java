package dev.ratelimit.redis;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitScope;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One application instance, for {@link TwoInstancesTest}: its own JVM, its own store and Lettuce
 * client. Prints {@code ready} once connected, waits for a line on stdin (so that the instances start
 * together), sends its requests all at once, and prints {@code admitted=<n>}.
 *
 * <p>Arguments: Redis URI, partition, permit limit, requests.
 */
public final class CountingInstance {

    private CountingInstance() {
    }

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        String partition = args[1];
        RateLimitPolicy limit = new RateLimitPolicy("shared", Integer.parseInt(args[2]), 60, RateLimitScope.TRANSPORT);
        int requests = Integer.parseInt(args[3]);
        try (RedisRateLimitStore store = RedisRateLimitStore.builder(uri).timeout(Duration.ofSeconds(10)).build()) {
            if (!store.awaitConnection(Duration.ofSeconds(10))) {
                throw new IllegalStateException("no Redis at " + uri);
            }
            System.out.println("ready");
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            List<CompletableFuture<RateLimitDecision>> inFlight = new ArrayList<>(requests);
            for (int i = 0; i < requests; i++) {
                inFlight.add(store.acquire(partition, List.of(limit)).toCompletableFuture());
            }
            int admitted = 0;
            for (CompletableFuture<RateLimitDecision> decision : inFlight) {
                admitted += decision.get(30, TimeUnit.SECONDS).allowed() ? 1 : 0;
            }
            System.out.println("admitted=" + admitted);
            System.out.flush();
        }
    }
}
