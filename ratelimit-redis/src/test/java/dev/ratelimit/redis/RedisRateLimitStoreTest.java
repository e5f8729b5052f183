package dev.ratelimit.redis;

import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.testing.ManualClock;
import dev.ratelimit.core.testing.RateLimitStoreContract;
import dev.ratelimit.redis.testing.RedisServerExtension;
import dev.ratelimit.redis.testing.Resp;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The store contract that the in-process store passes, run against the Redis store on a real Redis: the two
 * are the same limiter, for every algorithm, cost, debt, shadow limit and plan. Time comes from the
 * contract's manual clock (passed to the script instead of the server's {@code TIME}), at the store's
 * resolution of a microsecond.
 *
 * <p>The store takes its default client: this test's thread may block, so its calls go through Jedis (those the
 * store makes on Lettuce's threads, through Lettuce); {@link RedisRateLimitStoreOnLettuceTest} runs it all through Lettuce.
 *
 * <p>One store (one set of clients) serves every test of the class: each test's clock is plugged in when
 * the test begins, and every clock starts at {@link ManualClock#DEFAULT_START}, the store's origin. The
 * contract keeps tests apart by partition, but a count per application is every partition's (the partition
 * {@code application}, whichever the test), so each test begins on an empty database.
 */
class RedisRateLimitStoreTest extends RateLimitStoreContract {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final AtomicReference<ManualClock> CLOCK = new AtomicReference<>(new ManualClock());
    private static RedisRateLimitStore shared;

    @Override
    protected RateLimitStore newStore(ManualClock clock) {
        CLOCK.set(clock);
        try (Resp resp = REDIS.client()) {
            resp.call("FLUSHDB"); // a count per application left by an earlier test would be this one's too
        }
        if (shared == null) {
            shared = RedisRateLimitStore.builder(REDIS.uri()).timeout(Duration.ofSeconds(5)).client(client())
                    .nanoClock(() -> CLOCK.get().now()).build();
        }
        return shared;
    }

    /** Which client carries the calls. */
    RedisRateLimitStore.Client client() {
        return RedisRateLimitStore.Client.AUTO;
    }

    @Override
    protected long clockResolutionNanos() {
        return 1_000;
    }

    @AfterAll
    static void closeShared() {
        if (shared != null) {
            shared.close();
            shared = null;
        }
    }
}
