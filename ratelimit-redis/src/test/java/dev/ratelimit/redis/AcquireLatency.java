package dev.ratelimit.redis;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.redis.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Latency of one acquire on loopback, beside a plain {@code GET} on its own Lettuce connection, in the
 * same run against the same Redis (the embedded one unless {@code -Dratelimit.test.redis-server=...},
 * or an existing one given as the first argument). One request at a time; not a pass/fail test. The
 * request of three limits mixes the algorithms and kinds (a sliding window, a token bucket of cost 2, a
 * strict window in shadow mode).
 *
 * <pre>
 * mvn -q -pl ratelimit-redis -am test-compile
 * mvn -q -pl ratelimit-redis exec:java -Dexec.classpathScope=test -Dexec.mainClass=dev.ratelimit.redis.AcquireLatency
 * </pre>
 */
public final class AcquireLatency {

    private static final int ROUNDS = 20;
    private static final int PER_ROUND = 2_000;

    private AcquireLatency() {
    }

    public static void main(String[] args) throws Exception {
        RedisServerExtension redis = args.length == 0 ? new RedisServerExtension().startOnFreePort() : null;
        String uri = args.length == 0 ? redis.uri() : args[0];
        RedisClient client = RedisClient.create(uri);
        try (RedisRateLimitStore store = RedisRateLimitStore.builder(uri).timeout(Duration.ofSeconds(5)).build();
             StatefulRedisConnection<String, String> connection = client.connect()) {
            store.awaitConnection(Duration.ofSeconds(10));
            RedisAsyncCommands<String, String> commands = connection.async();
            commands.set("latency:plain", "x").get();
            RateLimitRequest one = RateLimitRequest.builder()
                    .add(bind(store, "one", RateLimitAlgorithm.SLIDING_WINDOW), key("one", RateLimitAlgorithm.SLIDING_WINDOW),
                            policy("one", RateLimitAlgorithm.SLIDING_WINDOW), 1, Kind.ACQUIRE)
                    .build();
            RateLimitRequest three = RateLimitRequest.builder()
                    .add(bind(store, "a", RateLimitAlgorithm.SLIDING_WINDOW), key("a", RateLimitAlgorithm.SLIDING_WINDOW),
                            policy("a", RateLimitAlgorithm.SLIDING_WINDOW), 1, Kind.ACQUIRE)
                    .add(bind(store, "b", RateLimitAlgorithm.TOKEN_BUCKET), key("b", RateLimitAlgorithm.TOKEN_BUCKET),
                            policy("b", RateLimitAlgorithm.TOKEN_BUCKET), 2, Kind.ACQUIRE)
                    .add(bind(store, "c", RateLimitAlgorithm.STRICT_WINDOW), key("c", RateLimitAlgorithm.STRICT_WINDOW),
                            policy("c", RateLimitAlgorithm.STRICT_WINDOW), 1, Kind.SHADOW)
                    .build();
            long[] get = new long[ROUNDS * PER_ROUND];
            long[] acquire1 = new long[ROUNDS * PER_ROUND];
            long[] acquire3 = new long[ROUNDS * PER_ROUND];
            for (int warm = 0; warm < 2; warm++) { // the first pass warms the JIT; the second is measured
                for (int round = 0; round < ROUNDS; round++) {
                    for (int i = 0; i < PER_ROUND; i++) {
                        long t = System.nanoTime();
                        commands.get("latency:plain").get(5, TimeUnit.SECONDS);
                        get[round * PER_ROUND + i] = System.nanoTime() - t;
                    }
                    for (int i = 0; i < PER_ROUND; i++) {
                        long t = System.nanoTime();
                        store.acquire("latency", one, 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
                        acquire1[round * PER_ROUND + i] = System.nanoTime() - t;
                    }
                    for (int i = 0; i < PER_ROUND; i++) {
                        long t = System.nanoTime();
                        store.acquire("latency", three, 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
                        acquire3[round * PER_ROUND + i] = System.nanoTime() - t;
                    }
                }
            }
            System.out.println("Redis at " + uri + ", " + ROUNDS * PER_ROUND + " calls each, one at a time, interleaved");
            report("GET (plain Lettuce async)", get);
            report("acquire, 1 limit", acquire1);
            report("acquire, 3 limits", acquire3);
            for (String line : commands.info("commandstats").get().split("\r\n")) {
                if (line.startsWith("cmdstat_get:") || line.startsWith("cmdstat_evalsha:")) {
                    System.out.println("server side " + line);
                }
            }
        } finally {
            client.shutdown();
            if (redis != null) {
                redis.close();
            }
        }
    }

    private static void report(String what, long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        System.out.printf("%-28s p50 %6.1f us   p99 %6.1f us   p99.9 %7.1f us%n", what,
                sorted[sorted.length / 2] / 1e3, sorted[(int) (sorted.length * 0.99)] / 1e3,
                sorted[(int) (sorted.length * 0.999)] / 1e3);
    }

    /** A limit that never refuses in this run: a billion permits an hour. */
    private static RateLimitPolicy policy(String name, RateLimitAlgorithm algorithm) {
        return new RateLimitPolicy(name, 1_000_000_000, 3600, algorithm);
    }

    private static CountKey key(String name, RateLimitAlgorithm algorithm) {
        return new CountKey(name, null, algorithm);
    }

    private static Object bind(RedisRateLimitStore store, String name, RateLimitAlgorithm algorithm) {
        return store.bind(key(name, algorithm));
    }
}
