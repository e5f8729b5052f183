package dev.ratelimit.redis;

import static dev.ratelimit.redis.SameAsInProcessTest.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitPolicy;
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
 * A Redis Cluster of one node that owns every slot: it refuses a script whose keys lie in different
 * slots (CROSSSLOT) just as a large cluster does, so it proves that all counts of a request share one
 * slot, and that the store speaks the cluster protocol ({@code ratelimit.redis.cluster=true}).
 */
class RedisClusterTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension("--cluster-enabled", "yes", "--cluster-announce-ip", "127.0.0.1");

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
                .timeout(Duration.ofSeconds(5)).build()) {
            assertThat(store.awaitConnection(Duration.ofSeconds(10))).isTrue();
            List<RateLimitPolicy> limits = List.of(policy("default", 3, 60), policy("burst", 1, 1), policy("hourly", 500, 3600));
            for (String partition : List.of("X-Api-Key:k1", "sub:alice", "}{", "")) {
                RateLimitDecision first = store.acquire(partition, limits).toCompletableFuture().get(5, TimeUnit.SECONDS);
                assertThat(first.allowed()).as(partition).isTrue();
                RateLimitDecision second = store.acquire(partition, limits).toCompletableFuture().get(5, TimeUnit.SECONDS);
                assertThat(second.refused()).extracting(o -> o.policy().name()).containsExactly("burst");
                store.releaseAsync(first).toCompletableFuture().get(5, TimeUnit.SECONDS);
                assertThat(store.acquire(partition, limits).toCompletableFuture().get(5, TimeUnit.SECONDS).allowed())
                        .as("given back on the cluster").isTrue();
            }
            assertThat(store.toString()).contains("cluster=true");
        }
    }
}
