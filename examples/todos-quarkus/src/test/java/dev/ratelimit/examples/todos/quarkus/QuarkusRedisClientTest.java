package dev.ratelimit.examples.todos.quarkus;

import static dev.ratelimit.examples.todos.quarkus.EventLoops.get;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.testing.Await;
import dev.ratelimit.redis.testing.Resp;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * With the extension, {@code ratelimit-redis} and {@code quarkus-redis-client}, the Redis store runs on the
 * application's own Quarkus Redis client ({@code quarkus.redis.hosts}, no {@code ratelimit.redis.uri}): on Quarkus'
 * Vert.x event loops, with no Lettuce thread in the JVM; requests are counted in Redis, a refusal is answered at home
 * after the first, and an admin reset lets the caller in at once (the announcement over the client's pub/sub).
 */
@QuarkusTest
@TestProfile(QuarkusRedisClientTest.OnTheQuarkusClient.class)
class QuarkusRedisClientTest {

    public static class OnTheQuarkusClient implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.arc.exclude-types", PendingDecisionStore.class.getName(),
                    "ratelimit.store.refusal-memory-millis", "60000");
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(QuarkusRedisClientResource.class));
        }
    }

    @Inject
    RateLimitStore store;

    @ConfigProperty(name = "quarkus.redis.hosts")
    String redisUri;

    @TestHTTPResource("/todos")
    URI todos;

    @TestHTTPResource("/")
    URI root;

    @Test
    void theStoreIsRedisOnTheQuarkusRedisClientWithNoLettuceThread() {
        assertThat(store.toString()).startsWith("RedisRateLimitStore(the Quarkus Redis client (quarkus.redis.hosts)");
        assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                .noneMatch(name -> name.toLowerCase(java.util.Locale.ROOT).contains("lettuce"));
    }

    @Test
    void countedInRedisAndAFloodCostsOneScriptCall() throws Exception {
        FrozenRedis redis = new FrozenRedis(redisUri);
        String key = "quarkus-client-" + UUID.randomUUID();
        long before = redis.evalsha();
        for (int remaining = 2; remaining >= 0; remaining--) {
            HttpResponse<String> allowed = get(todos, key);
            assertThat(allowed.statusCode()).isEqualTo(200);
            assertThat(allowed.headers().firstValue("RateLimit").orElse("")).containsPattern("\"default\";r=" + remaining + ";t=(59|60)");
        }
        HttpResponse<String> refused = get(todos, key);
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(redis.evalsha()).as("one script call per request").isEqualTo(before + 4);
        try (Resp client = redis.client()) {
            @SuppressWarnings("unchecked")
            List<Object> keys = (List<Object>) client.call("KEYS", "ratelimit:*" + key + "*");
            assertThat(keys).as("the partition's counts, in Redis").isNotEmpty();
        }

        awaitUntil(() -> { // once the subscription is in place, refusals are answered at home
            long was = redis.evalsha();
            return get(todos, key).statusCode() == 429 && redis.evalsha() == was;
        });
        long flood = redis.evalsha();
        for (int i = 0; i < 50; i++) {
            HttpResponse<String> again = get(todos, key);
            assertThat(again.statusCode()).isEqualTo(429);
            assertThat(again.body()).isEqualTo(refused.body());
        }
        assertThat(redis.evalsha()).as("50 refused requests").isEqualTo(flood);
    }

    @Test
    void theFingerprintOfTheKeySecretIsKeptInRedisThroughTheQuarkusClient() {
        FrozenRedis redis = new FrozenRedis(redisUri);
        try (Resp client = redis.client()) {
            String kept = client.string("GET", "ratelimit:key-secret-fingerprint");
            assertThat(kept).as("the fingerprint the example's start-up left").startsWith("hmac-sha256:");
            assertThat(kept).doesNotContain("example-only-not-a-secret");
        }
    }

    @Test
    void anAdminResetLetsTheRememberedCallerInAtOnce() throws Exception {
        FrozenRedis redis = new FrozenRedis(redisUri);
        String key = "quarkus-reset-" + UUID.randomUUID();
        for (int i = 0; i < 3; i++) {
            get(todos, key);
        }
        awaitUntil(() -> {
            long was = redis.evalsha();
            return get(todos, key).statusCode() == 429 && redis.evalsha() == was;
        });

        HttpResponse<String> reset = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(
                HttpRequest.newBuilder(root.resolve("ratelimit/limits/default/partitions/X-Api-Key:" + key))
                        .header("Authorization", "Bearer ops:admin").DELETE().timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(reset.statusCode()).isEqualTo(204);

        assertThat(get(todos, key).statusCode()).isEqualTo(200);
    }

    private static void awaitUntil(java.util.concurrent.Callable<Boolean> condition) throws Exception {
        Await.until("the refusal answered at home", 15, condition);
    }
}
