package dev.ratelimit.benchmarks.redis;

import dev.ratelimit.benchmarks.peers.Peers;
import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.redis.RedisRateLimitStore;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One hot key in Redis, {@value #THREADS} client threads, allowed path: our {@link RedisRateLimitStore}
 * (one Lua script per acquire) against Bucket4j's Lettuce compare-and-swap proxy manager, each on one
 * Lettuce connection to the same kind of Redis (see {@link RedisProcess}), each thread waiting for its
 * answer before the next acquire. The subclasses fix what is measured; {@link RedisCommands} counts the
 * commands each needs per acquire.
 */
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
@Threads(RedisHotKey.THREADS)
public abstract class RedisHotKey {

    static final int THREADS = 8;
    static final String KEY = "sub:alice";
    static final RateLimitPolicy POLICY = dev.ratelimit.benchmarks.support.Ours.policy("hot");
    static final RateLimitPolicy HOURLY = dev.ratelimit.benchmarks.support.Ours.policy("hourly");

    /** Ours on a Redis of its own. */
    @State(Scope.Benchmark)
    public static class Ours {
        RedisProcess redis;
        RedisRateLimitStore store;
        /** One limit, as the engine binds it at deployment. */
        RateLimitRequest request;
        /** Two limits on one request. */
        RateLimitRequest twoLimits;

        @Setup(Level.Trial)
        public void start() throws Exception {
            redis = RedisProcess.start();
            try (RedisStats stats = new RedisStats(redis.uri())) {
                stats.flushAll();
            }
            store = RedisRateLimitStore.builder(redis.uri()).timeout(Duration.ofSeconds(5)).build();
            if (!store.awaitConnection(Duration.ofSeconds(10))) {
                throw new IllegalStateException("no connection to " + redis.uri());
            }
            CountKey hot = new CountKey(POLICY.name(), null, POLICY.algorithm());
            CountKey hourly = new CountKey(HOURLY.name(), null, HOURLY.algorithm());
            request = RateLimitRequest.of(store.bind(hot), hot, POLICY, 1, Kind.ACQUIRE);
            twoLimits = RateLimitRequest.builder()
                    .add(store.bind(hot), hot, POLICY, 1, Kind.ACQUIRE)
                    .add(store.bind(hourly), hourly, HOURLY, 1, Kind.ACQUIRE)
                    .build();
        }

        RateLimitDecision acquire() {
            return acquire(request, 1);
        }

        /** {@code permits} times each limit of {@code limits}, waiting for the answer. */
        RateLimitDecision acquire(RateLimitRequest limits, int permits) {
            RateLimitDecision decision = store.acquire(KEY, limits, permits).toCompletableFuture().join();
            if (!decision.allowed()) {
                throw new IllegalStateException("refused: " + decision);
            }
            return decision;
        }

        @TearDown(Level.Trial)
        public void stop() throws Exception {
            store.close();
            redis.close();
        }
    }

    /** Bucket4j's Lettuce proxy on a Redis of its own. */
    @State(Scope.Benchmark)
    public static class Bucket4j {
        RedisProcess redis;
        RedisClient client;
        StatefulRedisConnection<byte[], byte[]> connection;
        BucketProxy bucket;

        @Setup(Level.Trial)
        public void start() throws Exception {
            redis = RedisProcess.start();
            try (RedisStats stats = new RedisStats(redis.uri())) {
                stats.flushAll();
            }
            client = RedisClient.create(redis.uri());
            connection = client.connect(ByteArrayCodec.INSTANCE);
            BucketConfiguration configuration = BucketConfiguration.builder()
                    .addLimit(limit -> limit.capacity(Peers.PERMITS).refillGreedy(Peers.PERMITS, Peers.WINDOW))
                    .build();
            bucket = Bucket4jLettuce.casBasedBuilder(connection).build()
                    .builder().build(KEY.getBytes(StandardCharsets.UTF_8), () -> configuration);
        }

        boolean acquire() {
            if (!bucket.tryConsume(1)) {
                throw new IllegalStateException("refused");
            }
            return true;
        }

        @TearDown(Level.Trial)
        public void stop() throws Exception {
            connection.close();
            client.shutdown();
            redis.close();
        }
    }

    @Benchmark
    public RateLimitDecision ratelimit_redisStore(Ours ours) {
        return ours.acquire();
    }

    @Benchmark
    public boolean bucket4j_lettuceCas(Bucket4j bucket4j) {
        return bucket4j.acquire();
    }
}
