package dev.ratelimit.examples.todos.peer;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.jedis.Bucket4jJedis;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Supplier;
import org.glassfish.jersey.server.ResourceConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * For the HTTP benchmarks only, beside {@link Bucket4jLettucePeer} and chosen by its {@value Bucket4jLettucePeer#CLIENT}
 * ({@code jedis}): Bucket4j's Jedis proxy (the same compare-and-swap proxy manager, on a Jedis pool: the request's
 * thread writes and reads its commands itself), with the same limit, keys and answers.
 *
 * <p>Thread-safe: the proxy manager and the pool are.
 */
@Priority(Priorities.AUTHENTICATION + 1)
public final class Bucket4jJedisPeer implements ContainerRequestFilter {

    private static final Duration WINDOW = Duration.ofSeconds(60);

    private final ProxyManager<byte[]> buckets;
    private final Supplier<BucketConfiguration> configuration;

    private Bucket4jJedisPeer(UnifiedJedis jedis, long permits) {
        this.buckets = Bucket4jJedis.casBasedBuilder(jedis)
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(WINDOW))
                .build();
        BucketConfiguration config = BucketConfiguration.builder()
                .addLimit(limit -> limit.capacity(permits).refillGreedy(permits, WINDOW))
                .build();
        this.configuration = () -> config;
    }

    static void register(ResourceConfig config, String uri, long permits) {
        config.register(new Bucket4jJedisPeer(RedisClient.create(uri), permits));
    }

    @Override
    public void filter(ContainerRequestContext request) {
        String key = request.getHeaderString("X-Api-Key");
        byte[] id = (key == null ? "anonymous" : "X-Api-Key:" + key).getBytes(StandardCharsets.UTF_8);
        ConsumptionProbe probe = buckets.builder().build(id, configuration).tryConsumeAndReturnRemaining(1);
        if (!probe.isConsumed()) {
            long seconds = Math.max(1, (probe.getNanosToWaitForRefill() + 999_999_999L) / 1_000_000_000L);
            request.abortWith(Response.status(429).header("Retry-After", seconds).build());
        }
    }
}
