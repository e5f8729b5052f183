package dev.ratelimit.examples.todos.quarkus;

/**
 * A real Redis, as {@link RedisTestResource} starts it, given to Quarkus as the application's own Redis client
 * ({@code quarkus.redis.hosts}); {@code ratelimit.redis.uri} stays unset.
 */
public class QuarkusRedisClientResource extends RedisTestResource {

    @Override
    protected String key() {
        return "quarkus.redis.hosts";
    }
}
