package dev.ratelimit.examples.todos.quarkus;

import dev.ratelimit.redis.testing.CommandStats;
import dev.ratelimit.redis.testing.Resp;
import io.netty.util.concurrent.EventExecutor;
import io.vertx.core.Vertx;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

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

    /**
     * Submits a task to every event loop of Quarkus' Vert.x at once, and returns how long each waited to run, by
     * thread name. An event loop that something blocks runs it only once it is free again.
     */
    static Map<String, Long> eventLoopLagMillis(Vertx vertx) throws Exception {
        long submitted = System.nanoTime();
        List<Future<String>> probes = new ArrayList<>();
        for (EventExecutor loop : vertx.nettyEventLoopGroup()) {
            probes.add(loop.submit(() -> Thread.currentThread().getName() + "="
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - submitted)));
        }
        Map<String, Long> lag = new TreeMap<>();
        for (Future<String> probe : probes) {
            String[] ran = probe.get(5, TimeUnit.SECONDS).split("=");
            lag.put(ran[0], Long.parseLong(ran[1]));
        }
        return lag;
    }
}
