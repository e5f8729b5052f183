package dev.ratelimit.examples.todos.peer;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.distributed.proxy.optimization.DelayParameters;
import io.github.bucket4j.distributed.proxy.optimization.Optimization;
import io.github.bucket4j.distributed.proxy.optimization.Optimizations;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.glassfish.jersey.server.ResourceConfig;

/**
 * For the HTTP benchmarks only, off unless {@value #REDIS_URI} is set: Bucket4j's Lettuce proxy (its
 * compare-and-swap proxy manager: a {@code GET}, the bucket's arithmetic in this JVM, a compare-and-swap script,
 * retried under contention) as the example's limiter, in a request filter of every request, with the limit and keys
 * the benchmarks give ratelimit ({@code ratelimit.enabled=false} beside it): a bucket per {@code X-Api-Key} (one for
 * requests without), {@value #PERMIT_LIMIT} permits a minute (default 100), refilled greedily. Refused: 429 with
 * {@code Retry-After}. Waits for Redis on the request's thread, as Bucket4j's synchronous API does.
 *
 * <p>{@value #OPTIMIZATION} picks one of Bucket4j's optimisations, which sync with Redis once per many requests and
 * over-admit by what each instance consumed unsynchronised (Bucket4j's "temporal overconsumption"): {@code delaying}
 * (at most {@value #UNSYNCED_PERMITS} permits or {@value #UNSYNCED_MILLIS} ms unsynchronised per bucket and instance,
 * the figures of Bucket4j's documentation) or {@code batching}. Their state lives in each bucket's proxy, so the
 * proxies are then kept per key (unbounded: the benchmarks' keys are few).
 *
 * <p>Thread-safe: the proxy manager and the connection are.
 */
@Priority(Priorities.AUTHENTICATION + 1)
public final class Bucket4jLettucePeer implements ContainerRequestFilter {

    /** Where Redis is; unset: no peer. */
    public static final String REDIS_URI = "benchmark.bucket4j.redis-uri";
    /** Permits a minute. */
    public static final String PERMIT_LIMIT = "benchmark.bucket4j.permit-limit";
    /** Which of Bucket4j's proxies: {@code lettuce} (this one, the default) or {@code jedis} ({@link Bucket4jJedisPeer}). */
    public static final String CLIENT = "benchmark.bucket4j.client";

    /** {@code delaying}, {@code batching}, or unset: none. */
    public static final String OPTIMIZATION = "benchmark.bucket4j.optimization";
    static final long UNSYNCED_PERMITS = 50;
    static final long UNSYNCED_MILLIS = 1000;

    private static final Duration WINDOW = Duration.ofSeconds(60);

    private final ProxyManager<byte[]> buckets;
    private final Supplier<BucketConfiguration> configuration;
    /** Null without an optimisation. */
    private final Optimization optimization;
    private final ConcurrentHashMap<String, BucketProxy> proxies = new ConcurrentHashMap<>();

    private Bucket4jLettucePeer(StatefulRedisConnection<byte[], byte[]> connection, long permits, String optimization) {
        this.buckets = Bucket4jLettuce.casBasedBuilder(connection)
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(WINDOW))
                .build();
        BucketConfiguration config = BucketConfiguration.builder()
                .addLimit(limit -> limit.capacity(permits).refillGreedy(permits, WINDOW))
                .build();
        this.configuration = () -> config;
        this.optimization = optimization == null || optimization.isBlank() ? null : switch (optimization) {
            case "delaying" -> Optimizations.delaying(new DelayParameters(UNSYNCED_PERMITS,
                    Duration.ofMillis(UNSYNCED_MILLIS)));
            case "batching" -> Optimizations.batching();
            default -> throw new IllegalArgumentException(OPTIMIZATION + " must be delaying or batching, was "
                    + optimization);
        };
    }

    /**
     * Registers the peer with {@code config} when {@value #REDIS_URI} is set: this one, or Bucket4j's Jedis proxy when
     * {@value #CLIENT} is {@code jedis}; else does nothing.
     */
    public static void registerIfAsked(ResourceConfig config) {
        String uri = System.getProperty(REDIS_URI);
        if (uri == null || uri.isBlank()) {
            return;
        }
        String proxy = System.getProperty(CLIENT, "lettuce");
        if (proxy.equals("jedis")) {
            Bucket4jJedisPeer.register(config, uri, Long.parseLong(System.getProperty(PERMIT_LIMIT, "100")));
            return;
        }
        if (!proxy.equals("lettuce")) {
            throw new IllegalArgumentException(CLIENT + " must be lettuce or jedis, was \"" + proxy + "\"");
        }
        long permits = Long.parseLong(System.getProperty(PERMIT_LIMIT, "100"));
        RedisClient client = RedisClient.create(uri);
        config.register(new Bucket4jLettucePeer(client.connect(ByteArrayCodec.INSTANCE), permits,
                System.getProperty(OPTIMIZATION)));
    }

    @Override
    public void filter(ContainerRequestContext request) {
        String key = request.getHeaderString("X-Api-Key");
        String name = key == null ? "anonymous" : "X-Api-Key:" + key;
        BucketProxy bucket = optimization == null ? bucket(name)
                : proxies.computeIfAbsent(name, this::bucket);
        ConsumptionProbe probe = bucket.tryConsumeAndReturnRemaining(1);
        if (!probe.isConsumed()) {
            long seconds = Math.max(1, (probe.getNanosToWaitForRefill() + 999_999_999L) / 1_000_000_000L);
            request.abortWith(Response.status(429).header("Retry-After", seconds).build());
        }
    }

    private BucketProxy bucket(String name) {
        byte[] id = name.getBytes(StandardCharsets.UTF_8);
        return optimization == null ? buckets.builder().build(id, configuration)
                : buckets.builder().withOptimization(optimization).build(id, configuration);
    }
}
