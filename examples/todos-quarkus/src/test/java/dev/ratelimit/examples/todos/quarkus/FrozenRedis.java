package dev.ratelimit.examples.todos.quarkus;

import dev.ratelimit.redis.testing.CommandStats;
import dev.ratelimit.redis.testing.Resp;
import java.net.URI;
import java.util.concurrent.CompletableFuture;

/**
 * What the Redis tests share: freezing the real Redis ({@code DEBUG SLEEP} blocks the whole server, so every
 * command sent meanwhile waits for it), or holding its writes for as long as a test wants ({@code CLIENT PAUSE WRITE}:
 * the store's scripts wait, while Redis still answers the test's reads, so that the test sees them held), and counting
 * the commands it ran.
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

    /**
     * Holds every write from now on (the store's script calls among them) until the returned pause is closed, or 15 s
     * have passed should the test fail first; the pause is in place when this returns.
     */
    Pause pauseWrites() {
        Resp admin = new Resp(port);
        try {
            Object ok = admin.call("CLIENT", "PAUSE", "15000", "WRITE");
            if (!"OK".equals(ok)) {
                throw new IllegalStateException("CLIENT PAUSE answered " + ok);
            }
        } catch (RuntimeException e) {
            admin.close();
            throw e;
        }
        return new Pause(admin);
    }

    /** Writes held by Redis until {@link #close()}. */
    static final class Pause implements AutoCloseable {
        private final Resp admin;

        private Pause(Resp admin) {
            this.admin = admin;
        }

        /** True when Redis holds a script call of a client (a store's decision, waiting: {@code CLIENT LIST} flag b). */
        boolean holdsAScriptCall() {
            for (String client : admin.string("CLIENT", "LIST").split("\n")) {
                String flags = field(client, "flags");
                String cmd = field(client, "cmd");
                if (flags != null && flags.contains("b") && cmd != null && cmd.matches("eval|evalsha|fcall")) {
                    return true;
                }
            }
            return false;
        }

        /** Lets Redis run the writes it held. */
        @Override
        public void close() {
            try {
                admin.call("CLIENT", "UNPAUSE");
            } finally {
                admin.close();
            }
        }

        private static String field(String client, String name) {
            for (String pair : client.strip().split(" ")) {
                if (pair.startsWith(name + "=")) {
                    return pair.substring(name.length() + 1);
                }
            }
            return null;
        }
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
