package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.redis.testing.CommandStats;
import dev.ratelimit.redis.testing.RedisServerExtension;
import dev.ratelimit.redis.testing.Resp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Redis Cluster of one node that owns every slot: it refuses a script whose keys lie in different slots
 * (CROSSSLOT) just as a large cluster does, so it proves that all counts of a request share one slot, and that
 * the store speaks the cluster protocol ({@code ratelimit.redis.cluster=true}).
 */
class RedisClusterTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension("--cluster-enabled", "yes",
            "--cluster-announce-ip", "127.0.0.1");

    @BeforeAll
    static void assignAllSlots() throws Exception {
        try (Resp resp = REDIS.client()) {
            List<String> addSlots = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            for (int slot = 0; slot < 16_384; slot++) {
                addSlots.add(Integer.toString(slot));
            }
            assertThat(resp.string(addSlots.toArray(String[]::new))).isEqualTo("OK");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!resp.string("CLUSTER", "INFO").contains("cluster_state:ok")) {
                assertThat(System.nanoTime()).as("cluster state ok within 10 s").isLessThan(deadline);
                Thread.sleep(50);
            }
        }
    }

    @Test
    void theClusterRefusesAScriptOverSeveralSlots() {
        try (Resp resp = REDIS.client()) {
            assertThatThrownBy(() -> resp.call("EVAL", "return 1", "2", "ratelimit:{a}x", "ratelimit:{b}x"))
                    .hasMessageContaining("CROSSSLOT");
        }
    }

    @Test
    void aRequestOfThreeLimitsIsDecidedInOneScriptOnTheCluster() throws Exception {
        try (RedisRateLimitStore store = RedisRateLimitStore.builder(REDIS.uri()).cluster(true)
                .timeout(Duration.ofSeconds(5)).build();
             Resp resp = REDIS.client()) {
            assertThat(store.awaitConnection(Duration.ofSeconds(10))).isTrue();
            RateLimitRequest limits = RateLimitRequest.builder()
                    .add(bind(store, "default", null, RateLimitAlgorithm.SLIDING_WINDOW), key("default", null, RateLimitAlgorithm.SLIDING_WINDOW),
                            new RateLimitPolicy("default", 3, 60), 1, Kind.ACQUIRE)
                    .add(bind(store, "burst", "gold", RateLimitAlgorithm.TOKEN_BUCKET), key("burst", "gold", RateLimitAlgorithm.TOKEN_BUCKET),
                            new RateLimitPolicy("burst", 1, 1, RateLimitAlgorithm.TOKEN_BUCKET), 1, Kind.ACQUIRE)
                    .add(bind(store, "hourly", null, RateLimitAlgorithm.STRICT_WINDOW), key("hourly", null, RateLimitAlgorithm.STRICT_WINDOW),
                            new RateLimitPolicy("hourly", 500, 3600, RateLimitAlgorithm.STRICT_WINDOW), 2, Kind.SHADOW)
                    .build();
            List<String> partitions = List.of("X-Api-Key:k1", "sub:alice", "}{", "");
            CommandStats before = CommandStats.of(resp);
            for (String partition : partitions) {
                RateLimitDecision first = acquire(store, partition, limits);
                assertThat(first.allowed()).as(partition).isTrue();
                RateLimitDecision second = acquire(store, partition, limits);
                assertThat(second.refused()).extracting(o -> o.policy().name()).containsExactly("burst");
                store.release(first).toCompletableFuture().get(5, TimeUnit.SECONDS);
                assertThat(acquire(store, partition, limits).allowed()).as("given back on the cluster").isTrue();
            }
            CommandStats after = CommandStats.of(resp);

            long calls = 4L * partitions.size(); // three acquires and one give-back per partition
            assertThat(after.succeededSince(before)).as("one script per call, each over the request's three counts")
                    .containsEntry("evalsha", calls).containsEntry("time", calls).containsEntry("get", 3 * calls)
                    .doesNotContainKeys("eval", "hmget", "hget", "mget");
            assertThat(after.failedSince(before)).isEmpty();
            assertThat(store.toString()).contains("cluster=true");
        }
    }

    private static CountKey key(String name, String plan, RateLimitAlgorithm algorithm) {
        return new CountKey(name, plan, algorithm);
    }

    private static Object bind(RedisRateLimitStore store, String name, String plan, RateLimitAlgorithm algorithm) {
        return store.bind(key(name, plan, algorithm));
    }

    private static RateLimitDecision acquire(RedisRateLimitStore store, String partition, RateLimitRequest request)
            throws Exception {
        return store.acquire(partition, request, 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
    }
}
