package dev.ratelimit.benchmarks.redis;

import dev.ratelimit.redis.testing.RedisServer;
import java.io.IOException;
import java.util.List;

/**
 * The Redis the Redis benchmarks talk to: {@code -Dbench.redis.uri=redis://host:port} names one that
 * runs already (nothing is started or stopped); otherwise a {@code redis-server} is started on a loopback port of its
 * own without persistence (ratelimit-redis' test {@link RedisServer}, which tries another port if the one it chose
 * was taken before Redis bound it): the one {@code -Dbench.redis.server} names (a path or a name on the
 * PATH, e.g. {@code redis-server} for Debian's), else the Redis 6.2 binary that
 * {@code com.github.codemonstur:embedded-redis} ships.
 */
final class RedisProcess implements AutoCloseable {

    private final String uri;
    private final RedisServer server;

    private RedisProcess(String uri, RedisServer server) {
        this.uri = uri;
        this.server = server;
    }

    static RedisProcess start() throws IOException, InterruptedException {
        String external = System.getProperty("bench.redis.uri", "").strip();
        if (!external.isEmpty()) {
            return new RedisProcess(external, null);
        }
        String binary = System.getProperty("bench.redis.server", "").strip();
        RedisServer server = new RedisServer(binary.isEmpty() ? RedisServer.defaultBinary() : binary, List.of());
        server.start();
        return new RedisProcess(server.uri(), server);
    }

    String uri() {
        return uri;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        if (server != null) {
            server.close();
        }
    }
}
