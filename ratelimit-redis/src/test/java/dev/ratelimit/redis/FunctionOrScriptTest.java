package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.testing.Await;
import dev.ratelimit.redis.testing.CommandStats;
import dev.ratelimit.redis.testing.RedisServerExtension;
import dev.ratelimit.redis.testing.Resp;
import dev.ratelimit.redis.transport.RedisScript;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Which way the store's calls name the script, on the Redis the tests run on: on Redis 7 and later, the function library
 * ({@code FCALL}), through either client; on Redis 6.2, the script ({@code EVALSHA}). The build runs the Redis tests on
 * both (its second run takes {@code redis-server} 7), so both ways are tested, and this says which one was.
 */
class FunctionOrScriptTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    @ParameterizedTest
    @EnumSource(value = RedisRateLimitStore.Client.class, names = {"JEDIS", "LETTUCE"})
    void redis7CallsTheFunctionLibraryAndOlderRedisTheScript(RedisRateLimitStore.Client client) throws Exception {
        RateLimitPolicy limit = new RateLimitPolicy("way", 100, 60);
        CountKey key = new CountKey(limit.name(), null, RateLimitAlgorithm.SLIDING_WINDOW);
        try (Resp admin = REDIS.client();
             RedisRateLimitStore store = RedisRateLimitStore.builder(REDIS.uri()).keyPrefix("way-" + client + ":")
                     .client(client).timeout(Duration.ofSeconds(5)).build()) {
            assertThat(store.awaitConnection(Duration.ofSeconds(10))).isTrue();
            int major = CommandStats.majorVersion(admin);
            RateLimitRequest request = RateLimitRequest.of(store.bind(key), key, limit, 1, Kind.ACQUIRE);
            CommandStats before = CommandStats.of(admin);
            for (int i = 0; i < 5; i++) {
                assertThat(store.acquire("p", request, 1).toCompletableFuture().get(10, TimeUnit.SECONDS).allowed()).isTrue();
            }
            Map<String, Long> ran = CommandStats.of(admin).succeededSince(before);
            if (major >= 7) {
                assertThat(ran).as("Redis %d: the function library", major).containsEntry("fcall", 5L)
                        .doesNotContainKeys("evalsha", "eval");
                assertThat(admin.call("FUNCTION", "LIST", "LIBRARYNAME", RedisScript.COUNTS.functionName()).toString())
                        .contains(RedisScript.COUNTS.functionName());
            } else {
                assertThat(ran).as("Redis %d: the script", major).containsEntry("evalsha", 5L)
                        .doesNotContainKeys("fcall", "eval");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = RedisRateLimitStore.Client.class, names = {"JEDIS", "LETTUCE"})
    void aStoreBuiltWhileRedisIsDownLoadsItOnceRedisIsUp(RedisRateLimitStore.Client client) throws Exception {
        RateLimitPolicy limit = new RateLimitPolicy("late", 100, 60);
        CountKey key = new CountKey(limit.name(), null, RateLimitAlgorithm.SLIDING_WINDOW);
        REDIS.stop();
        try (RedisRateLimitStore store = RedisRateLimitStore.builder(REDIS.uri()).keyPrefix("late-" + client + ":")
                .client(client).timeout(Duration.ofMillis(500)).build()) {
            assertThat(store.awaitConnection(Duration.ofMillis(300))).isFalse();
            REDIS.start();
            Await.until("the store connected", 10, () -> store.awaitConnection(Duration.ofMillis(200)));
            try (Resp admin = REDIS.client()) {
                RateLimitRequest request = RateLimitRequest.of(store.bind(key), key, limit, 1, Kind.ACQUIRE);
                CommandStats before = CommandStats.of(admin);
                assertThat(store.acquire("p", request, 1).toCompletableFuture().get(10, TimeUnit.SECONDS).allowed()).isTrue();
                assertThat(CommandStats.of(admin).succeededSince(before))
                        .containsEntry(CommandStats.majorVersion(admin) >= 7 ? "fcall" : "evalsha", 1L);
            }
        } finally {
            REDIS.start();
        }
    }
}
