package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitDecision.Outcome;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitScope;
import dev.ratelimit.redis.testing.RedisServerExtension;
import dev.ratelimit.store.InProcessRateLimitStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random schedules of acquires, give-backs and clock moves, run side by side on the in-process store
 * and the Redis store, each on its own fake clock moved in step: every outcome must be the same
 * (allowed, remaining, reset to the microsecond, the Redis store's resolution, and the receipt's step). Names are shared by limits of
 * different sizes, counts empty and re-anchor, give-backs come late, twice, or after the count moved on.
 */
class SameAsInProcessTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final List<List<RateLimitPolicy>> SIZES = List.of(
            List.of(policy("a", 3, 1), policy("a", 5, 2)),
            List.of(policy("b", 2, 8), policy("b", 4, 8)),
            List.of(policy("c", 1, 3), policy("c", 7, 1)),
            List.of(policy("d", 10, 3600)));
    private static final String[] PARTITIONS = {"p", "q", "sub:alice", ""};

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void everyOutcomeMatchesTheInProcessStore(long seed) throws Exception {
        Random random = new Random(seed);
        long start = 1_000_000_007L * seed;
        AtomicLong clock = new AtomicLong(start);
        InProcessRateLimitStore inProcess = new InProcessRateLimitStore(1_000_000, clock::get);
        try (RedisRateLimitStore redis = RedisRateLimitStore.builder(REDIS.uri())
                .keyPrefix("same-" + seed + ":").timeout(Duration.ofSeconds(5)).nanoClock(clock::get).build()) {
            List<RateLimitDecision[]> spent = new ArrayList<>();
            for (int op = 0; op < 4_000; op++) {
                int kind = random.nextInt(10);
                if (kind < 6) {
                    String partition = PARTITIONS[random.nextInt(PARTITIONS.length)];
                    List<RateLimitPolicy> policies = request(random);
                    RateLimitDecision expected = inProcess.decide(partition, policies);
                    RateLimitDecision actual = redis.acquire(partition, policies).toCompletableFuture()
                            .get(5, TimeUnit.SECONDS);
                    assertSame(expected, actual, start, "op " + op + " at " + (clock.get() - start) + " ns");
                    if (expected.allowed()) {
                        spent.add(new RateLimitDecision[] {expected, actual});
                    }
                } else if (kind < 8 && !spent.isEmpty()) {
                    RateLimitDecision[] pair = spent.get(random.nextInt(spent.size()));
                    inProcess.release(pair[0]);
                    redis.release(pair[1]);
                } else {
                    clock.addAndGet(advance(random) * 1_000); // the Redis store keeps microseconds
                }
            }
        }
    }

    private static List<RateLimitPolicy> request(Random random) {
        List<List<RateLimitPolicy>> names = new ArrayList<>(SIZES);
        Collections.shuffle(names, random);
        int n = 1 + random.nextInt(3);
        List<RateLimitPolicy> policies = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            List<RateLimitPolicy> sizes = names.get(i);
            policies.add(sizes.get(random.nextInt(sizes.size())));
        }
        return policies;
    }

    /** Microseconds. */
    private static long advance(Random random) {
        long step = new int[] {1, 2, 3, 8}[random.nextInt(4)] * 125_000L;
        switch (random.nextInt(7)) {
            case 0: return 0;
            case 1: return 1;
            case 2: return step - 1;
            case 3: return step;
            case 4: return step + 1;
            case 5: return (long) (random.nextDouble() * 8 * step);
            default: return random.nextInt(1_000);
        }
    }

    static void assertSame(RateLimitDecision expected, RateLimitDecision actual, long origin, String where) {
        assertThat(actual.partition()).isEqualTo(expected.partition());
        assertThat(actual.allowed()).as(where).isEqualTo(expected.allowed());
        for (int i = 0; i < expected.outcomes().size(); i++) {
            Outcome e = expected.outcomes().get(i);
            Outcome a = actual.outcomes().get(i);
            String what = where + ", outcome " + i + " " + e;
            assertThat(a.policy()).as(what).isEqualTo(e.policy());
            assertThat(a.allowed()).as(what).isEqualTo(e.allowed());
            assertThat(a.remaining()).as(what).isEqualTo(e.remaining());
            assertThat(a.resetNanos()).as(what).isEqualTo(e.resetNanos());
            assertThat(a.spent()).as(what).isEqualTo(e.spent());
            if (e.spent()) {
                assertThat(a.receipt() * 1_000).as(what + ": receipt, in microseconds").isEqualTo(e.receipt() - origin);
            }
        }
    }

    static RateLimitPolicy policy(String name, int permitLimit, int windowSeconds) {
        return new RateLimitPolicy(name, permitLimit, windowSeconds, RateLimitScope.TRANSPORT);
    }

}
