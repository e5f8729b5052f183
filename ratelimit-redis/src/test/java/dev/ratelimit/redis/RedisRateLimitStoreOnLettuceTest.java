package dev.ratelimit.redis;

/** The store contract ({@link RedisRateLimitStoreTest}), every call through Lettuce (the client of calls on event loops). */
class RedisRateLimitStoreOnLettuceTest extends RedisRateLimitStoreTest {

    @Override
    RedisRateLimitStore.Client client() {
        return RedisRateLimitStore.Client.LETTUCE;
    }
}
