package dev.ratelimit.redis;

import static dev.ratelimit.redis.SameAsInProcessTest.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitDecision.Outcome;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.redis.internal.RedisKeys;
import dev.ratelimit.redis.internal.RedisStoreException;
import dev.ratelimit.redis.testing.RedisServerExtension;
import dev.ratelimit.redis.testing.Resp;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Redis stops in the middle of a run, and comes back: each on-failure mode decides every request
 * within the timeout, one warning per store and outage, and the same stores (no restart) count in
 * Redis again once it answers.
 */
class RedisOutageTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final Duration TIMEOUT = Duration.ofMillis(300);
    /** What a loaded 2-core CI machine may add to the timeout before a stage completes. */
    private static final long SLACK_MILLIS = 400;

    private final ConcurrentLinkedQueue<LogRecord> logged = new ConcurrentLinkedQueue<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private final Logger logger = Logger.getLogger("dev.ratelimit.redis");

    private RedisRateLimitStore fail;
    private RedisRateLimitStore allow;
    private RedisRateLimitStore local;

    @BeforeEach
    void stores() throws Exception {
        logger.addHandler(capture);
        fail = store(OnFailure.FAIL);
        allow = store(OnFailure.ALLOW);
        local = store(OnFailure.LOCAL);
        for (RedisRateLimitStore store : List.of(fail, allow, local)) {
            assertThat(store.awaitConnection(Duration.ofSeconds(10))).isTrue();
            awaitRedis(store); // a cold JVM may miss the first timeouts
        }
        logged.clear();
    }

    @AfterEach
    void close() throws Exception {
        logger.removeHandler(capture);
        fail.close();
        allow.close();
        local.close();
        REDIS.start();
    }

    @Test
    void whileRedisIsDownEachModeDecidesWithinTheTimeoutAndAllRecoverWhenItIsBack() throws Exception {
        RateLimitPolicy limit = policy("outage", 2, 60);
        assertThat(decide(fail, "before", limit).outcomes().get(0).remaining()).isEqualTo(1);

        REDIS.stop();
        RateLimitDecision firstLocal = null;
        for (int i = 0; i < 5; i++) {
            long started = System.nanoTime();
            assertThatThrownBy(() -> decide(fail, "down", limit))
                    .isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(RedisStoreException.class).hasMessageContaining(REDIS.uri());
            assertWithinTimeout(started);

            started = System.nanoTime();
            Outcome uncounted = decide(allow, "down", limit).outcomes().get(0);
            assertWithinTimeout(started);
            assertThat(uncounted.allowed()).isTrue();
            assertThat(uncounted.remaining()).as("let through uncounted").isEqualTo(2);
            assertThat(uncounted.spent()).isFalse();

            started = System.nanoTime();
            RateLimitDecision counted = decide(local, "down", limit);
            assertWithinTimeout(started);
            assertThat(counted.allowed()).as("local request " + i).isEqualTo(i < 2);
            firstLocal = firstLocal == null ? counted : firstLocal;
        }
        local.releaseAsync(firstLocal).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(decide(local, "down", limit).allowed()).as("given back to the local count").isTrue();
        assertThat(warnings()).as("one warning per store and outage").hasSize(3)
                .allSatisfy(w -> assertThat(w).contains("does not answer"));
        assertThat(warnings()).anySatisfy(w -> assertThat(w).contains("on-failure=local"));

        REDIS.start();
        awaitRedis(fail);
        awaitRedis(allow);
        awaitRedis(local);
        Outcome back = decide(local, "back", limit).outcomes().get(0);
        assertThat(back.receipt()).as("counted in Redis again").isNotNegative();
        assertThat(back.remaining()).isEqualTo(1);
        try (Resp resp = REDIS.client()) {
            assertThat(resp.number("EXISTS", new RedisKeys("outage-LOCAL:").key(RedisKeys.tag("back"), "outage")))
                    .isEqualTo(1);
        }
        assertThat(logged).filteredOn(r -> r.getLevel() == Level.INFO)
                .extracting(LogRecord::getMessage).hasSize(3).allSatisfy(m -> assertThat(m).contains("answers again"));
        assertThat(warnings()).hasSize(3);
    }

    @Test
    void aRedisThatHangsCostsEachRequestTheTimeoutAtMost() throws Exception {
        RateLimitPolicy limit = policy("hang", 5, 60);
        try (Resp resp = REDIS.client()) {
            assertThat(resp.string("CLIENT", "PAUSE", "1500")).isEqualTo("OK");
        }
        long started = System.nanoTime();
        CompletableFuture<RateLimitDecision> failed = fail.acquire("hung", List.of(limit)).toCompletableFuture();
        CompletableFuture<RateLimitDecision> allowed = allow.acquire("hung", List.of(limit)).toCompletableFuture();
        CompletableFuture<RateLimitDecision> local = this.local.acquire("hung", List.of(limit)).toCompletableFuture();
        assertThatThrownBy(() -> failed.get(5, TimeUnit.SECONDS)).cause()
                .isInstanceOf(RedisStoreException.class).hasMessageContaining("did not answer within 300 ms");
        assertThat(allowed.get(5, TimeUnit.SECONDS).outcomes().get(0).remaining()).isEqualTo(5);
        assertThat(local.get(5, TimeUnit.SECONDS).outcomes().get(0).receipt()).as("counted in process").isNegative();
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertThat(elapsed).isBetween(TIMEOUT.toMillis() - 10, TIMEOUT.toMillis() + SLACK_MILLIS);
        assertThat(warnings()).hasSize(3).allSatisfy(w -> assertThat(w).contains("TimeoutException"));

        awaitRedis(fail);
        awaitRedis(allow);
        awaitRedis(this.local);
    }

    @Test
    void aStoreBuiltWhileRedisIsDownStartsAndConnectsOnceRedisIsUp() throws Exception {
        REDIS.stop();
        try (RedisRateLimitStore late = store(OnFailure.FAIL)) {
            assertThat(late.awaitConnection(Duration.ofMillis(200))).isFalse();
            long started = System.nanoTime();
            assertThatThrownBy(() -> decide(late, "late", policy("late", 1, 60))).cause()
                    .isInstanceOf(RedisStoreException.class);
            assertWithinTimeout(started);
            assertThat(warnings()).as("one warning, at start-up").hasSize(1);

            REDIS.start();
            awaitRedis(late);
            assertThat(warnings()).hasSize(1);
        }
    }

    private List<String> warnings() {
        return logged.stream().filter(r -> r.getLevel() == Level.WARNING).map(LogRecord::getMessage).toList();
    }

    private static void assertWithinTimeout(long started) {
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(TIMEOUT.toMillis() + SLACK_MILLIS);
    }

    /** Polls until the store counts in Redis again (Lettuce reconnects by itself), 15 s at most. */
    private static void awaitRedis(RedisRateLimitStore store) throws Exception {
        RateLimitPolicy probe = policy("probe", 1_000_000, 60);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (true) {
            try {
                Outcome outcome = decide(store, "probe", probe).outcomes().get(0);
                if (outcome.spent() && outcome.receipt() >= 0) {
                    return; // a Redis receipt: uncounted and local decisions have none or a negative one
                }
            } catch (ExecutionException stillDown) {
                // on-failure=fail while reconnecting
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(store + " did not count in Redis again within 15 s");
            }
            Thread.sleep(50);
        }
    }

    private static RedisRateLimitStore store(OnFailure onFailure) {
        return RedisRateLimitStore.builder(REDIS.uri()).timeout(TIMEOUT).onFailure(onFailure)
                .keyPrefix("outage-" + onFailure + ":").build();
    }

    private static RateLimitDecision decide(RedisRateLimitStore store, String partition, RateLimitPolicy limit)
            throws Exception {
        return store.acquire(partition, List.of(limit)).toCompletableFuture().get(5, TimeUnit.SECONDS);
    }
}
