package dev.ratelimit.examples.todos.quarkus;

import static dev.ratelimit.examples.todos.quarkus.EventLoops.get;
import static dev.ratelimit.examples.todos.quarkus.EventLoops.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vertx.core.Vertx;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * "An intercepted method returning CompletionStage (or Mutiny Uni, where present) gets the decision
 * chained, not awaited", on Quarkus with Redis: non-blocking resource methods, on the event loop, call a
 * {@code @RateLimit} CDI bean method returning {@code CompletionStage} ({@link AsyncLimitedBean#stage}) and one
 * returning {@code Uni} ({@link AsyncLimitedBean#uni}). With Redis frozen, the calls return at once, every
 * event loop stays free while the requests wait (a task submitted to each runs at once, and another
 * non-blocking endpoint answers), and the requests complete once Redis answers: 200 with the bean's body run on
 * an event loop, or the 429 of the bean's limit.
 *
 * <p>The profile turns the example's module limit off (see {@link RedisOnQuarkusTest.WithRedis}), so that the
 * bean's decision is the only one these requests make: the filter asks the store nothing, and what waits for
 * the frozen Redis is the interceptor's decision. Were it awaited on the event loop, the probes would wait
 * for Redis too.
 *
 * <p>What the requests answer is asserted in every attempt. How soon the event loops ran the probes, and the ping
 * answered, are times on two busy cores: measured over up to {@value #ATTEMPTS} attempts (each with Redis frozen
 * anew), the best one must be within the bounds (an event loop held by Redis would run them only after it).
 */
@QuarkusTest
@TestProfile(RedisOnQuarkusTest.WithRedis.class)
class AsyncBeanOnTheEventLoopWithRedisTest {

    private static final long FROZEN_MILLIS = 1500;
    private static final int ATTEMPTS = 3;
    /** How late a task submitted to an event loop may run while requests wait for Redis: at once, not after Redis. */
    private static final long FREE_WITHIN_MILLIS = 200;
    /** How long another non-blocking endpoint may take to answer meanwhile. */
    private static final long PING_WITHIN_MILLIS = 500;
    /** How long an intercepted call may take to return its stage or Uni: at once, not after Redis. */
    private static final long RETURNED_WITHIN_MICROS = 100_000;

    @Inject
    Vertx vertx;

    @ConfigProperty(name = "ratelimit.redis.uri")
    String redisUri;

    @TestHTTPResource("/quarkus-test/async-bean/stage")
    URI stage;

    @TestHTTPResource("/quarkus-test/async-bean/uni")
    URI uni;

    @TestHTTPResource("/quarkus-test/async-bean/ping")
    URI ping;

    @Test
    void beanDecisionsWaitForFrozenRedisWithoutHoldingAnEventLoop() throws Exception {
        FrozenRedis redis = new FrozenRedis(redisUri);
        String warmKey = "async-" + UUID.randomUUID();

        // Warm up (connections, the script loaded): one permit of each bean limit spent for a key, in Redis, by
        // the bean's decision alone.
        long evalshaBefore = redis.evalsha();
        for (URI uri : List.of(stage, uni)) {
            HttpResponse<String> warm = get(uri, warmKey);
            assertThat(warm.statusCode()).as("warm-up %s", uri).isEqualTo(200);
            assertThat(warm.headers().firstValue("X-Called-On").orElse("")).as("warm-up %s", uri).contains("eventloop");
            assertThat(warm.body()).as("warm-up %s", uri).contains("eventloop");
        }
        assertThat(redis.evalsha()).as("one decision per request, the bean's: the filter asked Redis nothing")
                .isEqualTo(evalshaBefore + 2);

        List<Attempt> attempts = new ArrayList<>();
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            Attempt seen = attempt(redis);
            attempts.add(seen);
            if (seen.judged() && seen.slowestLoopMillis() < FREE_WITHIN_MILLIS && seen.pingMillis() < PING_WITHIN_MILLIS) {
                return;
            }
        }
        assertThat(attempts).as("an attempt whose requests still waited for Redis after the probes, with every event loop "
                + "free within %d ms and the ping answered within %d ms", FREE_WITHIN_MILLIS, PING_WITHIN_MILLIS)
                .anyMatch(Attempt::judged);
        fail("in none of %d attempts were the event loops free within %d ms and the ping answered within %d ms: %s",
                ATTEMPTS, FREE_WITHIN_MILLIS, PING_WITHIN_MILLIS, attempts);
    }

    /**
     * What one attempt saw.
     *
     * @param judged            whether the requests still waited for Redis once the probes had run
     * @param slowestLoopMillis how late the slowest event loop ran its probe
     * @param pingMillis        how long the ping took to answer
     */
    private record Attempt(boolean judged, long slowestLoopMillis, long pingMillis, Map<String, Long> lags) {
    }

    /**
     * A key of its own with one permit of each bean limit spent (limit 2); then Redis frozen, both beans called twice
     * with that key (the two race for its last permit) and once with another, the event loops probed; then Redis
     * answers, and every request's answer is asserted.
     */
    private Attempt attempt(FrozenRedis redis) throws Exception {
        String key = "async-" + UUID.randomUUID();
        String other = "async-" + UUID.randomUUID();
        // one permit of each bean limit spent for key first, so that of the two requests below one is refused
        for (URI uri : List.of(stage, uni)) {
            assertThat(get(uri, key).statusCode()).as("first request of %s", uri).isEqualTo(200);
        }
        long evalshaBefore = redis.evalsha();

        // Freeze Redis, then call both beans: twice with key (limit 2: one allowed, one refused), once with another.
        CompletableFuture<Object> frozen = redis.freeze(FROZEN_MILLIS);
        Thread.sleep(100);
        long sent = System.nanoTime();
        HttpClient client = HttpClient.newHttpClient();
        Map<String, CompletableFuture<HttpResponse<String>>> pending = new LinkedHashMap<>();
        for (URI uri : List.of(stage, uni)) {
            String name = uri.getPath().substring(uri.getPath().lastIndexOf('/') + 1);
            pending.put(name + " key #1", client.sendAsync(request(uri, key), HttpResponse.BodyHandlers.ofString()));
            pending.put(name + " key #2", client.sendAsync(request(uri, key), HttpResponse.BodyHandlers.ofString()));
            pending.put(name + " other key", client.sendAsync(request(uri, other), HttpResponse.BodyHandlers.ofString()));
        }
        Thread.sleep(300);
        boolean waitedBeforeProbes = pending.values().stream().noneMatch(CompletableFuture::isDone);

        // Meanwhile every event loop is free: another non-blocking endpoint answers, on an event loop, and a task
        // submitted to each event loop runs at once.
        long pingSent = System.nanoTime();
        CompletableFuture<Long> pingMillis = HttpClient.newHttpClient()
                .sendAsync(request(ping, "ping-" + UUID.randomUUID()), HttpResponse.BodyHandlers.ofString())
                .thenApply(pong -> {
                    assertThat(pong.statusCode()).isEqualTo(200);
                    assertThat(pong.body()).as("the ping ran on an event loop").contains("eventloop");
                    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pingSent);
                });
        Map<String, Long> lagMillis = EventLoops.lagMillis(vertx);
        long ping = pingMillis.get(5, TimeUnit.SECONDS);
        boolean waitedAfterProbes = pending.values().stream().noneMatch(CompletableFuture::isDone);

        // Redis answers: every request completes, with the bean's decision.
        assertThat(frozen.get(10, TimeUnit.SECONDS)).isEqualTo("OK");
        Map<String, Integer> statuses = new LinkedHashMap<>();
        List<HttpResponse<String>> allowed = new ArrayList<>();
        for (Map.Entry<String, CompletableFuture<HttpResponse<String>>> e : pending.entrySet()) {
            HttpResponse<String> r = e.getValue().get(10, TimeUnit.SECONDS);
            statuses.put(e.getKey(), r.statusCode());
            if (r.statusCode() == 200) {
                allowed.add(r);
            } else {
                String limit = e.getKey().startsWith("stage") ? "async-stage" : "async-uni";
                assertThat(r.body()).as(e.getKey()).contains("\"violated-policies\":[\"" + limit + "\"]");
                assertThat(r.headers().firstValue("Retry-After")).as(e.getKey()).isPresent();
            }
        }
        if (waitedBeforeProbes) {
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent))
                    .as("the answers came after Redis woke up").isGreaterThanOrEqualTo(FROZEN_MILLIS - 150);
        }
        // key #1 and key #2 race for key's last permit: one of them is allowed, the other refused
        assertThat(statuses.get("stage key #1") + statuses.get("stage key #2")).as("%s", statuses).isEqualTo(200 + 429);
        assertThat(statuses.get("uni key #1") + statuses.get("uni key #2")).as("%s", statuses).isEqualTo(200 + 429);
        assertThat(statuses).containsEntry("stage other key", 200).containsEntry("uni other key", 200);
        allowed.forEach(AsyncBeanOnTheEventLoopWithRedisTest::assertAllowedOnTheEventLoop);
        assertThat(redis.evalsha()).as("each bean decision made by Redis").isEqualTo(evalshaBefore + 6);
        assertThat(lagMillis).isNotEmpty();
        long slowest = lagMillis.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        return new Attempt(waitedBeforeProbes && waitedAfterProbes, slowest, ping, lagMillis);
    }

    /** The resource method and, once the decision allowed it, the bean's body ran on event loops; the call returned at once. */
    private static void assertAllowedOnTheEventLoop(HttpResponse<String> r) {
        assertThat(r.headers().firstValue("X-Called-On").orElse("")).as("the resource method's thread").contains("eventloop");
        assertThat(r.body()).as("the bean method's thread, after the decision").contains("eventloop");
        assertThat(r.headers().firstValue("X-Call-Returned-Micros").map(Long::parseLong).orElseThrow())
                .as("the intercepted call returned its result at once").isLessThan(RETURNED_WITHIN_MICROS);
    }
}
