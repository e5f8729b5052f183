package dev.ratelimit.examples.todos.quarkus;

import static dev.ratelimit.examples.todos.quarkus.EventLoops.get;
import static dev.ratelimit.examples.todos.quarkus.EventLoops.request;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.testing.Await;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.redis.testing.Resp;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.vertx.core.Vertx;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * ratelimit-redis inside Quarkus (with Lettuce 6.8 on Quarkus' Netty 4.1: Lettuce 7 needs Netty 4.2), against a real
 * Redis started before Quarkus boots: the counts live in Redis, and a non-blocking resource method, whose
 * filters Quarkus REST runs on the event loop, gets its decision from Redis while the event loops stay
 * free.
 */
@QuarkusTest
@TestProfile(RedisOnQuarkusTest.WithRedis.class)
class RedisOnQuarkusTest {

    /**
     * Redis as the store, on Lettuce: the test-only store of PendingDecisionOnTheEventLoopTest is left out, and so is
     * the producer that puts the store on the Quarkus Redis client when the application has it (this module's tests
     * do: {@link QuarkusRedisClientTest}). Shared with {@link AsyncBeanOnTheEventLoopWithRedisTest} (one profile:
     * Quarkus and Redis start once for both).
     */
    public static class WithRedis implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "quarkus.arc.exclude-types", PendingDecisionStore.class.getName()
                            + ",dev.ratelimit.quarkus.runtime.redis.QuarkusRedisStoreProducer",
                    // room for the frozen-Redis tests (the default, 250 ms, would fail those requests); the
                    // engine's key (it beats application.properties' %test value of the same key)
                    "ratelimit.store.timeout-millis", "5000",
                    // The example's module limit (on every resource method without limits of its own) would be
                    // decided by the filter, in Redis, before a resource method runs: the async-bean resources
                    // would then wait for a frozen Redis before they even call the bean. Off here, so that the
                    // bean's limits are the only ones decided (in the test of those, while Redis is frozen).
                    "ratelimit.limits.module.mode", "off");
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(RedisTestResource.class));
        }
    }

        @Inject
    RateLimitStore store;

    @Inject
    Vertx vertx;

    @ConfigProperty(name = "ratelimit.redis.uri")
    String redisUri;

    @TestHTTPResource("/todos")
    URI todos;

    @TestHTTPResource("/quarkus-test/non-blocking")
    URI nonBlocking;

    @Test
    void theStoreIsRedis() {
        // the producer's bean is @Singleton (no client proxy): its toString() is the store's
        assertThat(store.toString()).startsWith(RedisRateLimitStore.class.getSimpleName() + "(uri=" + redisUri + ",");
    }

    @Test
    void getTodosIsCountedInRedis() throws Exception {
        FrozenRedis redis = new FrozenRedis(redisUri);
        String key = "redis-" + UUID.randomUUID();
        long evalshaBefore = redis.evalsha();
        for (int remaining = 2; remaining >= 0; remaining--) {
            HttpResponse<String> allowed = get(todos, key);
            assertThat(allowed.statusCode()).isEqualTo(200);
            assertThat(allowed.headers().firstValue("RateLimit-Policy").orElse("")).contains("\"default\";q=3;w=60");
            // the window's seconds left, counted from the first request: 60, or less once a second has gone by (a slow machine)
            assertThat(allowed.headers().firstValue("RateLimit").orElse(""))
                    .matches(".*\"default\";r=" + remaining + ";t=(5[5-9]|60)\\b.*");
            assertThat(allowed.headers().firstValue("Retry-After")).isEmpty();
        }
        HttpResponse<String> refused = get(todos, key);
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Retry-After").map(Long::parseLong).orElseThrow()).isBetween(55L, 60L);
        assertThat(refused.headers().firstValue("RateLimit").orElse("")).contains("\"default\";r=0;t=");
        assertThat(refused.headers().firstValue("RateLimit-Remaining")).hasValue("0");
        assertThat(refused.body()).contains("\"violated-policies\":[\"default\"]");

        assertThat(redis.evalsha()).as("one script call per request").isEqualTo(evalshaBefore + 4);
        try (Resp client = redis.client()) {
            @SuppressWarnings("unchecked")
            List<Object> keys = (List<Object>) client.call("KEYS", "ratelimit:*" + key + "*");
            assertThat(keys).as("the partition's counts, in Redis").isNotEmpty();
        }
    }

    /**
     * Six requests wait for decisions that Redis holds ({@code CLIENT PAUSE WRITE}, lifted only by the test), and every
     * event loop runs a task meanwhile, round after round: a loop that a waiting request held would run none before
     * the store's timeout (5 s), while a free one runs it at once. The test proceeds on what it sees (Redis holding a
     * script call of the store, the answers not yet there), never on a guess of how long something takes.
     */
    @Test
    void nonBlockingMethodWaitsForHeldRedisWithoutHoldingAnEventLoop() throws Exception {
        FrozenRedis redis = new FrozenRedis(redisUri);
        String key = "redis-nb-" + UUID.randomUUID();
        assertThat(get(nonBlocking, key).body()).as("warm up; runs on the event loop").contains("eventloop");
        long evalshaBefore = redis.evalsha();
        int loops = 0;
        for (var loop : vertx.nettyEventLoopGroup()) {
            loops++;
        }

        HttpClient client = HttpClient.newHttpClient();
        List<CompletableFuture<HttpResponse<String>>> pending = new ArrayList<>();
        Map<String, Long> slowest = new TreeMap<>();
        int[] rounds = {0};
        try (FrozenRedis.Pause pause = redis.pauseWrites()) {
            for (int i = 0; i < 6; i++) {
                pending.add(client.sendAsync(request(nonBlocking, i < 2 ? key : key + "-" + i),
                        HttpResponse.BodyHandlers.ofString()));
            }
            Await.until("a decision of the store held by Redis", 10, pause::holdsAScriptCall);

            int expectedLoops = loops;
            Await.until("ten rounds of a task on every event loop while the requests wait", 30, () -> {
                // half the store's timeout (5 s): a loop held by a waiting request stays held until the timeout
                Map<String, Long> lag = EventLoops.lagMillisOrHeld(vertx, 2_500, "Redis held the decisions");
                assertThat(lag).as("every event loop ran the task").hasSize(expectedLoops);
                lag.forEach((loop, millis) -> slowest.merge(loop, millis, Math::max));
                assertThat(pending).as("the requests still wait for Redis after probe round %d", rounds[0] + 1)
                        .noneMatch(CompletableFuture::isDone);
                return ++rounds[0] >= 10;
            });
        }
        List<Integer> statuses = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> response : pending) {
            HttpResponse<String> r = response.get(10, TimeUnit.SECONDS);
            statuses.add(r.statusCode());
            if (r.statusCode() == 200) {
                assertThat(r.body()).contains("eventloop");
            }
        }
        // limit 2 on "non-blocking": the warm-up took one permit of key, so one of its two requests is refused
        assertThat(statuses).as("answered once Redis ran the decisions (slowest task per loop, ms: %s)", slowest)
                .containsExactlyInAnyOrder(200, 429, 200, 200, 200, 200);
        assertThat(redis.evalsha()).as("decided by Redis").isEqualTo(evalshaBefore + 6);
    }
}
