package dev.ratelimit.examples.todos.quarkus;

import dev.ratelimit.redis.testing.CommandStats;
import dev.ratelimit.redis.testing.Resp;
import java.net.URI;
import java.util.concurrent.CompletableFuture;

/**
 * What the Redis tests share: freezing the real Redis ({@code DEBUG SLEEP} blocks the whole server, so every
 * command sent meanwhile waits for it), counting the commands it ran, and probing Quarkus' event loops.
 */
final class FrozenRedis {

    private final int port;

    FrozenRedis(String redisUri) {
        this.port = URI.create(redisUri).getPort();
    }

    /** Freezes Redis for {@code millis} from another connection; completes with "OK" when Redis is back. */
    CompletableFuture<Object> freeze(long millis) {
        return CompletableFuture.supplyAsync(() -> {
            try (Resp redis = new Resp(port)) {
                return redis.call("DEBUG", "SLEEP", Double.toString(millis / 1000.0));
            }
        });
    }

    /** The {@code EVALSHA} calls that succeeded so far (the store runs its script with one per decision). */
    long evalsha() {
        try (Resp redis = new Resp(port)) {
            return CommandStats.of(redis).succeeded().getOrDefault("evalsha", 0L);
        }
    }

    Resp client() {
        return new Resp(port);
    }
}
