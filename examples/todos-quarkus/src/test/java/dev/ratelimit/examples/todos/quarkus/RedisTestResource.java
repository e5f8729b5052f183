package dev.ratelimit.examples.todos.quarkus;

import dev.ratelimit.redis.testing.RedisServerExtension;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/**
 * A real Redis (ratelimit-redis' {@link RedisServerExtension}), started before Quarkus boots and stopped
 * after it; Quarkus is given its URI as {@code ratelimit.redis.uri} ({@link #key()}).
 */
public class RedisTestResource implements QuarkusTestResourceLifecycleManager {

    private RedisServerExtension redis;

    /** The configuration key that gets Redis' URI. */
    protected String key() {
        return "ratelimit.redis.uri";
    }

    @Override
    public Map<String, String> start() {
        try {
            redis = new RedisServerExtension().startOnFreePort();
        } catch (Exception e) {
            throw new IllegalStateException("cannot start Redis", e);
        }
        return Map.of(key(), redis.uri());
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
