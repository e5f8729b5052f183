package dev.ratelimit.redis;

import static dev.ratelimit.core.testing.EngineFixtures.beanMethod;
import static dev.ratelimit.core.testing.EngineFixtures.decideNow;
import static dev.ratelimit.core.testing.EngineFixtures.limit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitStoreException;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.core.testing.LogRecords;
import dev.ratelimit.redis.cdi.RedisSettings;
import dev.ratelimit.redis.internal.RedisKeys;
import dev.ratelimit.redis.testing.RedisServerExtension;
import dev.ratelimit.redis.testing.Resp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Redis stops, hangs ({@code CLIENT PAUSE}) and comes back, under the engine, which owns the failure policy
 * for every store (docs/stores.md, "When the store fails"): each of {@code fail}, {@code allow} and {@code local}
 * decides every call within {@code ratelimit.store.timeout-millis}; one warning per engine and outage, one line on
 * recovery; the same stores (no restart) count in Redis again once it answers. The older spellings
 * {@code ratelimit.redis.timeout-millis} and {@code ratelimit.redis.on-failure} still work.
 */
class RedisOutageTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final long TIMEOUT_MILLIS = 300;
    /** What a loaded 2-core machine may add to the timeout before a stage completes. */
    private static final long SLACK_MILLIS = 400;
    private static final RateLimitPolicy LIMIT = new RateLimitPolicy("outage", 2, 60);

    private final LogRecords logged = LogRecords.on(LogRecords.LIBRARY);
    private final List<RedisRateLimitStore> stores = new ArrayList<>();

    private Guarded fail;
    private Guarded allow;
    private Guarded local;

    /** An engine on its own Redis store, with one limit bound. */
    private record Guarded(String mode, RedisRateLimitStore store, RateLimitEngine engine, BoundLimits limits) {
    }

    @BeforeEach
    void engines() throws Exception {
        fail = guarded("fail", settings("fail"));
        allow = guarded("allow", settings("allow"));
        local = guarded("local", settings("local"));
        for (Guarded g : List.of(fail, allow, local)) {
            assertThat(g.store.awaitConnection(Duration.ofSeconds(10))).isTrue();
            awaitRedis(g); // a cold JVM may miss the first timeouts
        }
        logged.clear();
    }

    @AfterEach
    void close() throws Exception {
        logged.close();
        stores.forEach(RedisRateLimitStore::close);
        REDIS.start();
    }

    @Test
    void whileRedisIsStoppedEachPolicyDecidesWithinTheTimeoutAndAllRecoverWhenItIsBack() throws Exception {
        assertThat(decide(fail, "before").outcome(0).remaining()).isEqualTo(1);

        REDIS.stop();
        RequestLedger firstLocal = null;
        for (int i = 0; i < 5; i++) {
            long started = System.nanoTime();
            assertThatThrownBy(() -> decide(fail, "down"))
                    .isInstanceOf(RateLimitStoreException.class).hasMessageContaining(REDIS.uri());
            assertWithinTimeout(started);

            started = System.nanoTime();
            Outcome uncounted = decide(allow, "down").outcome(0);
            assertWithinTimeout(started);
            assertThat(uncounted.state()).isEqualTo(State.UNCOUNTED);
            assertThat(uncounted.remaining()).as("let through uncounted").isEqualTo(2);

            started = System.nanoTime();
            RequestLedger ledger = local.engine.ledger("down");
            RateLimitDecision counted = decideNow(local.engine, ledger, local.limits);
            assertWithinTimeout(started);
            assertThat(counted.allowed()).as("local request " + i).isEqualTo(i < 2);
            firstLocal = firstLocal == null ? ledger : firstLocal;
        }
        local.engine.giveBack(firstLocal);
        assertThat(decide(local, "down").allowed()).as("given back to the local count").isTrue();
        assertThat(warnings()).as("one warning per engine and outage").hasSize(3)
                .allSatisfy(w -> assertThat(w).contains("failed to decide").contains("RedisRateLimitStore(uri=" + REDIS.uri()));
        assertThat(warnings()).anySatisfy(w -> assertThat(w).contains("ratelimit.store.on-failure=local"));

        REDIS.start();
        for (Guarded g : List.of(fail, allow, local)) {
            awaitRedis(g);
        }
        Outcome back = decide(local, "back").outcome(0);
        assertThat(back.state()).isEqualTo(State.SPENT);
        assertThat(back.remaining()).isEqualTo(1);
        try (Resp resp = REDIS.client()) {
            assertThat(resp.number("EXISTS", new RedisKeys("outage-local:").key(RedisKeys.tag("back"), "outage")))
                    .as("counted in Redis again").isEqualTo(1);
        }
        assertThat(recoveries()).as("one line per engine on recovery").hasSize(3);
        assertThat(warnings()).hasSize(3);
    }

    @Test
    void aRedisThatHangsCostsEachCallTheTimeoutAtMost() throws Exception {
        try (Resp resp = REDIS.client()) {
            assertThat(resp.string("CLIENT", "PAUSE", "1500")).isEqualTo("OK");
        }
        long started = System.nanoTime();
        var failed = fail.engine.decide(fail.engine.ledger("hung"), fail.limits, 1).toCompletableFuture();
        var allowed = allow.engine.decide(allow.engine.ledger("hung"), allow.limits, 1).toCompletableFuture();
        var counted = local.engine.decide(local.engine.ledger("hung"), local.limits, 1).toCompletableFuture();

        assertThatThrownBy(() -> failed.get(5, TimeUnit.SECONDS)).cause()
                .isInstanceOf(RateLimitStoreException.class).hasMessageContaining("imeout");
        assertThat(allowed.get(5, TimeUnit.SECONDS).outcome(0).state()).isEqualTo(State.UNCOUNTED);
        assertThat(counted.get(5, TimeUnit.SECONDS).outcome(0).state()).as("counted in process").isEqualTo(State.SPENT);
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertThat(elapsed).isBetween(TIMEOUT_MILLIS - 10, TIMEOUT_MILLIS + SLACK_MILLIS);
        assertThat(warnings()).hasSize(3).allSatisfy(w -> assertThat(w).contains("TimeoutException"));

        for (Guarded g : List.of(fail, allow, local)) {
            awaitRedis(g); // once the pause is over
        }
        assertThat(recoveries()).hasSize(3);
    }

    @Test
    void aStoreBuiltWhileRedisIsDownStartsAndCountsInRedisOnceItIsUp() throws Exception {
        REDIS.stop();
        Guarded late = guarded("late", settings("fail"));
        assertThat(late.store.awaitConnection(Duration.ofMillis(200))).isFalse();
        long started = System.nanoTime();
        assertThatThrownBy(() -> decide(late, "late")).isInstanceOf(RateLimitStoreException.class);
        assertWithinTimeout(started);
        assertThat(warnings()).as("one warning, at the first call").hasSize(1);

        REDIS.start();
        awaitRedis(late);
        assertThat(decide(late, "late").outcome(0).state()).isEqualTo(State.SPENT);
        assertThat(warnings()).hasSize(1);
        assertThat(recoveries()).hasSize(1);
    }

    @Test
    void theOlderRedisSpellingsOfTheTimeoutAndTheFailurePolicyStillWork() throws Exception {
        Guarded old = guarded("old", Map.of(RedisSettings.OLDER_TIMEOUT_MILLIS, "600",
                RedisSettings.OLDER_ON_FAILURE, "allow"));
        awaitRedis(old);
        assertThat(old.engine.binder().summary()).contains("timeout 600 ms, on failure allow");
        try (Resp resp = REDIS.client()) {
            assertThat(resp.string("CLIENT", "PAUSE", "1500")).isEqualTo("OK");
        }
        long started = System.nanoTime();
        Outcome uncounted = decide(old, "paused").outcome(0);
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

        assertThat(uncounted.state()).isEqualTo(State.UNCOUNTED);
        assertThat(elapsed).as("waited for the older key's 600 ms, not the default 250").isBetween(590L, 600 + SLACK_MILLIS);
        awaitRedis(old);
    }

    // ------------------------------------------------------------------------------------------------

    /**
     * An engine with {@code settings} on a store of its own, whose Lettuce timeout is the engine's: an asynchronous
     * store, whose calls the engine's deadline cuts short (what a blocking Jedis call costs in an outage:
     * {@link OutageCostsOneTimeoutTest}).
     */
    private Guarded guarded(String mode, Map<String, String> settings) {
        RateLimitSettings parsed = RateLimitSettings.of(settings);
        RedisRateLimitStore store = RedisRateLimitStore.builder(REDIS.uri())
                .timeout(Duration.ofMillis(parsed.timeoutMillis())).keyPrefix("outage-" + mode + ":")
                .client(RedisRateLimitStore.Client.LETTUCE).build();
        stores.add(store);
        RateLimitEngine engine = RateLimitEngine.builder(parsed, store).build();
        BoundLimits limits = engine.binder().bind(beanMethod("RedisOutageTest." + mode + "()", limit(LIMIT, 1)));
        return new Guarded(mode, store, engine, limits);
    }

    private static Map<String, String> settings(String onFailure) {
        return Map.of(RateLimitSettings.STORE_TIMEOUT_MILLIS, Long.toString(TIMEOUT_MILLIS),
                RateLimitSettings.STORE_ON_FAILURE, onFailure);
    }

    private static RateLimitDecision decide(Guarded g, String partition) {
        return decideNow(g.engine, g.engine.ledger(partition), g.limits);
    }

    private List<String> warnings() {
        return logged.messages(Level.WARNING);
    }

    private List<String> recoveries() {
        return logged.messages(Level.INFO, "answers again");
    }

    private static void assertWithinTimeout(long started) {
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(TIMEOUT_MILLIS + SLACK_MILLIS);
    }

    /**
     * Waits until the engine decides in Redis again (Lettuce reconnects by itself; the engine tries the store again
     * once its retry time has passed), 15 s at most: a call of a new partition whose count then exists in Redis.
     */
    private static void awaitRedis(Guarded g) throws Exception {
        RedisKeys keys = new RedisKeys("outage-" + g.mode + ":");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (true) {
            String partition = "probe-" + System.nanoTime();
            try {
                decide(g, partition);
                try (Resp resp = REDIS.client()) {
                    if (resp.number("EXISTS", keys.key(RedisKeys.tag(partition), LIMIT.name())) == 1) {
                        return;
                    }
                }
            } catch (RateLimitStoreException | java.io.UncheckedIOException notYet) {
                // fail: the store is still down; Resp: Redis not yet up
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(g.store + " did not decide in Redis again within 15 s");
            }
            Thread.sleep(50);
        }
    }
}
