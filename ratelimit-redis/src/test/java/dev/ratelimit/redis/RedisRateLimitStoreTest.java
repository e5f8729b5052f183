package dev.ratelimit.redis;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.redis.testing.RedisServerExtension;
import dev.ratelimit.testing.FakeClock;
import dev.ratelimit.testing.RateLimitStoreContract;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The store contract that the in-process store passes, run against the Redis store on a real Redis:
 * the two are the same limiter. Time comes from the contract's fake clock (passed to the script
 * instead of the server's {@code TIME}), at the store's resolution of a microsecond.
 */
class RedisRateLimitStoreTest extends RateLimitStoreContract {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    @Override
    protected RateLimitStore newStore(FakeClock clock) {
        return RedisRateLimitStore.builder(REDIS.uri()).timeout(Duration.ofSeconds(5)).nanoClock(clock).build();
    }

    @Override
    protected long clockResolutionNanos() {
        return 1_000;
    }

    @Override
    protected void release(RateLimitStore store, RateLimitDecision decision) {
        try {
            ((RedisRateLimitStore) store).releaseAsync(decision).toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("the give-back did not complete: " + e, e);
        }
    }

    @Override
    protected void closeStore(RateLimitStore store) {
        ((RedisRateLimitStore) store).close();
    }
}
