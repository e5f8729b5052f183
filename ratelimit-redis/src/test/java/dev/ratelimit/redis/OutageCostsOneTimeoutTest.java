package dev.ratelimit.redis;

import static dev.ratelimit.core.testing.EngineFixtures.limit;
import static dev.ratelimit.core.testing.EngineFixtures.beanMethod;
import static dev.ratelimit.core.testing.EngineFixtures.decideNow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.engine.BoundLimits;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.redis.testing.RedisServerExtension;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An outage costs one timeout, against a real Redis frozen with {@code SIGSTOP} (its connections stay open,
 * nothing answers: the worst kind of outage): the first request waits for the timeout, the following ones are
 * answered by the failure policy without waiting; after {@code SIGCONT} the engine counts in Redis again within the
 * retry time and one probe.
 */
class OutageCostsOneTimeoutTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final long TIMEOUT_MILLIS = 250;
    private static final long RETRY_MILLIS = 1000;

    @Test
    void whileRedisIsStoppedOnlyTheFirstRequestWaitsAndCountingResumesAfterItContinues() throws Exception {
        try (RedisRateLimitStore store = RedisRateLimitStore.builder(REDIS.uri()).keyPrefix("sigstop:")
                .timeout(Duration.ofMillis(TIMEOUT_MILLIS + 1000)).build()) {
            assertThat(store.awaitConnection(Duration.ofSeconds(10))).isTrue();
            RateLimitEngine engine = RateLimitEngine.builder(RateLimitSettings.of(Map.of(
                    "ratelimit.store.timeout-millis", Long.toString(TIMEOUT_MILLIS),
                    "ratelimit.store.retry-millis", Long.toString(RETRY_MILLIS),
                    "ratelimit.store.on-failure", "allow")), store).build();
            BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", 
                    limit(new RateLimitPolicy("default", 1_000_000, 60), 1)));
            for (int i = 0; i < 20; i++) { // warm
                assertThat(decideNow(engine, engine.ledger("p"), limits).outcome(0).state()).isEqualTo(State.SPENT);
            }

            signal("STOP");
            List<Long> millis = new ArrayList<>();
            try {
                for (int i = 0; i < 21; i++) {
                    long started = System.nanoTime();
                    State state = decideNow(engine, engine.ledger("p"), limits).outcome(0).state();
                    millis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
                    assertThat(state).as("request %d, answered by the policy", i).isEqualTo(State.UNCOUNTED);
                }
            } finally {
                signal("CONT");
            }
            long continued = System.nanoTime();

            assertThat(millis.get(0)).as("the first request waits for the timeout").isGreaterThanOrEqualTo(TIMEOUT_MILLIS - 5);
            List<Long> following = new ArrayList<>(millis.subList(1, millis.size()));
            following.sort(null);
            assertThat(following.get(following.size() / 2)).as("median of the following 20 (ms): %s", millis)
                    .isLessThan(25);

            while (decideNow(engine, engine.ledger("p"), limits).outcome(0).state() != State.SPENT) {
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - continued))
                        .as("counting resumes within the retry time and one probe")
                        .isLessThan(RETRY_MILLIS + TIMEOUT_MILLIS + 1000);
                Thread.sleep(10);
            }
        }
    }

    private static void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(REDIS.pid())).inheritIO().start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0).as("kill -" + name).isTrue();
    }
}
