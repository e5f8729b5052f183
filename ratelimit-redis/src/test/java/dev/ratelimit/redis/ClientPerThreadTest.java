package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.redis.testing.CommandStats;
import dev.ratelimit.redis.testing.RedisServerExtension;
import dev.ratelimit.redis.testing.Resp;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With the default client ({@code auto}), which client carries a call depends on the thread that makes it: a thread
 * that may block (a request thread of Jersey, Open Liberty, Payara; this test's) writes and reads the call itself,
 * through Jedis, and its stage is complete when {@code acquire} returns; a thread that must not block (a fork-join
 * pool's, where asynchronous stages go on; an event loop) hands it to Lettuce. Seen from Redis: the last command of
 * each client's connection ({@code CLIENT LIST}), Jedis' named {@code ratelimit-jedis}, Lettuce's {@code ratelimit}.
 */
class ClientPerThreadTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    @Test
    void aThreadThatMayBlockCallsThroughJedisAndAForkJoinThreadThroughLettuce() throws Exception {
        RateLimitPolicy limit = new RateLimitPolicy("thread", 100, 60);
        CountKey key = new CountKey(limit.name(), null, RateLimitAlgorithm.SLIDING_WINDOW);
        try (Resp admin = REDIS.client();
             RedisRateLimitStore store = RedisRateLimitStore.builder(REDIS.uri()).keyPrefix("thread:")
                     .timeout(Duration.ofSeconds(5)).build()) {
            assertThat(store.client()).isEqualTo("jedis+lettuce");
            assertThat(store.awaitConnection(Duration.ofSeconds(10))).isTrue();
            String script = CommandStats.majorVersion(admin) >= 7 ? "fcall" : "evalsha";
            RateLimitRequest request = RateLimitRequest.of(store.bind(key), key, limit, 1, Kind.ACQUIRE);

            CompletableFuture<?> onThisThread = store.acquire("p", request, 1).toCompletableFuture();
            assertThat(onThisThread).as("answered on this thread, before acquire returned").isDone();
            assertThat(lastCommand(admin, "ratelimit-jedis")).isEqualTo(script);
            assertThat(lastCommand(admin, "ratelimit")).as("Lettuce's connection: only its loading").isNotEqualTo(script);

            ForkJoinPool.commonPool().submit(() -> store.acquire("p", request, 1).toCompletableFuture().join())
                    .get(10, TimeUnit.SECONDS);
            assertThat(lastCommand(admin, "ratelimit")).as("a fork-join thread's call, through Lettuce").isEqualTo(script);
        }
    }

    /** The last command of the one connection named {@code name}. */
    private static String lastCommand(Resp admin, String name) {
        List<String> clients = Arrays.stream(admin.string("CLIENT", "LIST").split("\n"))
                .filter(line -> line.contains(" name=" + name + " ")).toList();
        assertThat(clients).as("connections named %s", name).hasSize(1);
        String line = clients.get(0);
        int at = line.indexOf(" cmd=") + 5;
        return line.substring(at, line.indexOf(' ', at));
    }
}
