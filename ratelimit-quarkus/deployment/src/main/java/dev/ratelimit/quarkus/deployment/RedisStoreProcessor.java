package dev.ratelimit.quarkus.deployment;

import io.quarkus.arc.deployment.AdditionalBeanBuildItem;
import io.quarkus.bootstrap.classloading.QuarkusClassLoader;
import io.quarkus.deployment.Capabilities;
import io.quarkus.deployment.Capability;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;

/**
 * The Redis store on the application's Quarkus Redis client: where the application has both
 * {@code ratelimit-redis} and {@code quarkus-redis-client}, the store is made on the Vert.x Redis client
 * ({@code dev.ratelimit.quarkus.runtime.redis.QuarkusRedisStoreProducer}), on Quarkus' event loops, instead of on
 * Lettuce and its own I/O threads. Elsewhere nothing here runs, and no class of either is loaded.
 */
class RedisStoreProcessor {

    private static final String REDIS_STORE = "dev.ratelimit.redis.RedisRateLimitStore";
    private static final String PRODUCER = "dev.ratelimit.quarkus.runtime.redis.QuarkusRedisStoreProducer";

    @BuildStep
    void storeOnTheQuarkusRedisClient(Capabilities capabilities, BuildProducer<AdditionalBeanBuildItem> beans) {
        if (capabilities.isPresent(Capability.REDIS_CLIENT) && QuarkusClassLoader.isClassPresentAtRuntime(REDIS_STORE)) {
            beans.produce(AdditionalBeanBuildItem.builder().addBeanClasses(PRODUCER).setUnremovable().build());
        }
    }
}
