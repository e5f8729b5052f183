package dev.ratelimit.benchmarks.quarkus.bucket4j;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.local.LocalBucket;
import io.github.bucket4j.local.SynchronizationStrategy;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Provider;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What an application writes when it limits per client with Bucket4j by hand: a request filter, one
 * synchronized local bucket per {@code X-Api-Key} in a map (unbounded: the comparison keeps 5 000 keys),
 * 429 when empty. 100 000 000 a minute: out of reach.
 */
@Provider
public class Bucket4jFilter implements ContainerRequestFilter {

    private final ConcurrentHashMap<String, LocalBucket> buckets = new ConcurrentHashMap<>();

    @Override
    public void filter(ContainerRequestContext request) {
        String key = request.getHeaderString("X-Api-Key");
        LocalBucket bucket = buckets.computeIfAbsent(key == null ? "anonymous" : key, k -> Bucket.builder()
                .withSynchronizationStrategy(SynchronizationStrategy.SYNCHRONIZED)
                .addLimit(limit -> limit.capacity(100_000_000).refillGreedy(100_000_000, Duration.ofMinutes(1)))
                .build());
        if (!bucket.tryConsume(1)) {
            request.abortWith(Response.status(429).build());
        }
    }
}
