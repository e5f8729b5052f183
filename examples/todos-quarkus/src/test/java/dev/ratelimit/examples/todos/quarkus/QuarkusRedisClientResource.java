package dev.ratelimit.examples.todos.quarkus;

import dev.ratelimit.redis.testing.RedisServerExtension;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/**
 * A real Redis (ratelimit-redis' {@link RedisServerExtension}), started before Quarkus boots and stopped after it;
 * Quarkus is given its URI as the application's own Redis client ({@code quarkus.redis.hosts}), and
 * {@code ratelimit.redis.uri} stays unset.
 */
public class QuarkusRedisClientResource implements QuarkusTestResourceLifecycleManager {

    private RedisServerExtension redis;

    @Override
    public Map<String, String> start() {
        try {
            redis = new RedisServerExtension().startOnFreePort();
        } catch (Exception e) {
            throw new IllegalStateException("cannot start Redis", e);
        }
        return Map.of("quarkus.redis.hosts", redis.uri());
    }

    @Override
    public void stop() {
        if (redis != null) {
            try {
                redis.close();
            } catch (Exception e) {
                throw new IllegalStateException("cannot stop Redis", e);
            }
        }
    }
}
