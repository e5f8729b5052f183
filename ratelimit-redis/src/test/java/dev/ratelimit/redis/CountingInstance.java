package dev.ratelimit.redis;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.testing.CountingJvm;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One application instance, for {@link TwoInstancesTest}: its own JVM, its own store and Lettuce client.
 * Prints {@code ready} once connected, waits for a line on stdin (so that the instances start together),
 * sends its requests all at once, {@code requests} on a limit of each algorithm, and prints
 * {@code admitted=<n>,<n>,<n>} (in the order of {@link RateLimitAlgorithm#values()}): {@link CountingJvm}.
 *
 * <p>Arguments: Redis URI, partition, permit limit, requests per algorithm.
 */
public final class CountingInstance {

    private CountingInstance() {
    }

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        try (RedisRateLimitStore store = RedisRateLimitStore.builder(uri).timeout(Duration.ofSeconds(10)).build()) {
            if (!store.awaitConnection(Duration.ofSeconds(10))) {
                throw new IllegalStateException("no Redis at " + uri);
            }
            System.out.println("ready");
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            System.out.println(CountingJvm.admitted(store, args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]),
                    30));
            System.out.flush();
        }
    }
}
