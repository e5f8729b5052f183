package dev.ratelimit.redis;

import static dev.ratelimit.core.testing.EngineFixtures.beanMethod;
import static dev.ratelimit.core.testing.EngineFixtures.decideNow;
import static dev.ratelimit.core.testing.EngineFixtures.limit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.testing.ManualClock;
import dev.ratelimit.core.testing.TrackedStore;
import dev.ratelimit.redis.testing.RedisServerExtension;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An outage costs one timeout, against a real Redis frozen with {@code SIGSTOP} (its connections stay open,
 * nothing answers: the worst kind of outage): the first request waits for the timeout, the following ones are
 * answered by the failure policy without calling the store; no call probes Redis before
 * {@code ratelimit.store.retry-millis} has passed since the outage began, the first request at that instant does (one
 * probe a round), and after {@code SIGCONT} the engine counts in Redis again.
 *
 * <p>The retry is measured on the engine's clock, a manual one that only this test moves: the outage began at the
 * instant the first request timed out, so a request one nanosecond before the retry time must go without the store
 * and one at the retry time must reach it, whatever the machine's speed (a retry of three times the setting, or a
 * third of it, fails). Redis stays stopped until the probe has been seen: an answer of Redis ends an outage, and the
 * calls it held would answer as soon as it continues. Calls reaching the store are counted on the way to it
 * ({@link TrackedStore}).
 */
class OutageCostsOneTimeoutTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final long TIMEOUT_MILLIS = 250;
    private static final long RETRY_MILLIS = 1000;

    /**
     * Lettuce waits long for an answer (the calls that Redis holds while stopped are answered once it continues), and
     * the engine's deadline answers first; Jedis blocks the caller, and its socket timeout is the engine's.
     */
    @ParameterizedTest
    @EnumSource(value = RedisRateLimitStore.Client.class, names = {"LETTUCE", "JEDIS"})
    void whileRedisIsStoppedOnlyTheFirstRequestWaitsAndOneProbeGoesExactlyAtTheRetryTime(RedisRateLimitStore.Client client)
            throws Exception {
        ManualClock clock = new ManualClock();
        try (RedisRateLimitStore redis = RedisRateLimitStore.builder(REDIS.uri()).keyPrefix("sigstop:" + client + ":")
                .timeout(Duration.ofSeconds(30)).blockingTimeout(Duration.ofMillis(TIMEOUT_MILLIS)).client(client).build()) {
            assertThat(redis.client()).isEqualTo(client == RedisRateLimitStore.Client.JEDIS ? "jedis" : "lettuce");
            assertThat(redis.awaitConnection(Duration.ofSeconds(10))).isTrue();
            TrackedStore store = new TrackedStore(redis);
            RateLimitEngine engine = RateLimitEngine.builder(RateLimitSettings.of(Map.of(
                    "ratelimit.store.timeout-millis", Long.toString(TIMEOUT_MILLIS),
                    "ratelimit.store.retry-millis", Long.toString(RETRY_MILLIS),
                    "ratelimit.store.on-failure", "allow")), store).clock(clock).build();
            BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()",
                    limit(new RateLimitPolicy("default", 1_000_000, 60), 1)));
            for (int i = 0; i < 20; i++) { // warm
                assertThat(decide(engine, limits)).isEqualTo(State.SPENT);
            }
            long outageBegins = clock.now(); // the clock stands still until the test moves it
            long retry = TimeUnit.MILLISECONDS.toNanos(RETRY_MILLIS);
            int calls = store.acquires();

            signal("STOP");
            long firstMillis;
            try {
                long started = System.nanoTime();
                assertThat(decide(engine, limits)).as("the first request, answered by the policy").isEqualTo(State.UNCOUNTED);
                firstMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                assertThat(store.acquires()).as("the first request called the store").isEqualTo(++calls);
                for (int i = 1; i <= 20; i++) {
                    assertThat(decide(engine, limits)).as("request %d, answered by the policy", i).isEqualTo(State.UNCOUNTED);
                }
                assertThat(store.acquires()).as("calls to the store after the first timed out").isEqualTo(calls);

                clock.set(outageBegins + retry - 1);
                assertThat(decide(engine, limits)).isEqualTo(State.UNCOUNTED);
                assertThat(store.acquires()).as("calls one nanosecond before the retry time").isEqualTo(calls);

                clock.set(outageBegins + retry);
                assertThat(decide(engine, limits)).as("the probe, unanswered").isEqualTo(State.UNCOUNTED);
                assertThat(store.acquires()).as("calls at the retry time: one probe").isEqualTo(++calls);
                assertThat(decide(engine, limits)).isEqualTo(State.UNCOUNTED);
                assertThat(store.acquires()).as("calls after the probe failed: the next round waits").isEqualTo(calls);
            } finally {
                signal("CONT");
            }
            assertThat(firstMillis).as("the first request waits for the timeout").isGreaterThanOrEqualTo(TIMEOUT_MILLIS - 5);

            clock.set(outageBegins + 2 * retry); // the next round, if the late answers have not ended the outage yet
            assertThat(decide(engine, limits)).as("counted in Redis again").isEqualTo(State.SPENT);
            assertThat(decide(engine, limits)).isEqualTo(State.SPENT);
        }
    }

    private static State decide(RateLimitEngine engine, BoundLimits limits) {
        return decideNow(engine, engine.ledger("p"), limits).outcome(0).state();
    }

    private static void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(REDIS.pid())).inheritIO().start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0).as("kill -" + name).isTrue();
    }
}
