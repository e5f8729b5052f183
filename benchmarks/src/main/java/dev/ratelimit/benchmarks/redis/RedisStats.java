package dev.ratelimit.benchmarks.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

/** Reads Redis's own count of the commands it processed ({@code INFO stats}), on a connection of its own. */
final class RedisStats implements AutoCloseable {

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    RedisStats(String uri) {
        client = RedisClient.create(uri);
        try {
            connection = client.connect();
        } catch (RuntimeException e) {
            client.shutdown();
            throw e;
        }
    }

    /** Commands Redis processed so far, this {@code INFO} not included (it counts once it has answered). */
    long commandsProcessed() {
        String info = connection.sync().info("stats");
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("total_commands_processed:")) {
                return Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
            }
        }
        throw new IllegalStateException("no total_commands_processed in INFO stats: " + info);
    }

    /** Per-command calls ({@code INFO commandstats}), for the record. */
    String commandStats() {
        return connection.sync().info("commandstats");
    }

    void flushAll() {
        connection.sync().flushall();
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
