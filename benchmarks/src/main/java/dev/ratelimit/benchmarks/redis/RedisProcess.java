package dev.ratelimit.benchmarks.redis;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import redis.embedded.core.ExecutableProvider;

/**
 * The Redis the Redis benchmarks talk to: {@code -Dbench.redis.uri=redis://host:port} names one that
 * runs already (nothing is started or stopped); otherwise a {@code redis-server} is started on a free
 * loopback port without persistence: the one {@code -Dbench.redis.server} names (a path or a name on the
 * PATH, e.g. {@code redis-server} for Debian's), else the Redis 6.2 binary that
 * {@code com.github.codemonstur:embedded-redis} ships.
 */
final class RedisProcess implements AutoCloseable {

    private final String uri;
    private final Process process;
    private final Path dir;

    private RedisProcess(String uri, Process process, Path dir) {
        this.uri = uri;
        this.process = process;
        this.dir = dir;
    }

    static RedisProcess start() throws IOException, InterruptedException {
        String external = System.getProperty("bench.redis.uri", "").strip();
        if (!external.isEmpty()) {
            return new RedisProcess(external, null, null);
        }
        String server = System.getProperty("bench.redis.server", "").strip();
        if (server.isEmpty()) {
            File embedded = ExecutableProvider.newJarResourceProvider().get();
            if (!embedded.canExecute() && !embedded.setExecutable(true)) {
                throw new IOException("cannot make " + embedded + " executable");
            }
            server = embedded.getAbsolutePath();
        }
        int port = freePort();
        Path dir = Files.createTempDirectory("ratelimit-bench-redis");
        File log = dir.resolve("redis.log").toFile();
        Process process = new ProcessBuilder(List.of(server, "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--protected-mode", "no", "--dir", dir.toString()))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log)).start();
        RedisProcess redis = new RedisProcess("redis://127.0.0.1:" + port, process, dir);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException(server + " exited with " + process.exitValue() + ": " + Files.readString(log.toPath()));
            }
            try (RedisStats stats = new RedisStats(redis.uri())) {
                stats.commandsProcessed();
                return redis;
            } catch (RuntimeException notYet) {
                if (System.nanoTime() > deadline) {
                    redis.close();
                    throw new IllegalStateException(server + " did not answer on port " + port, notYet);
                }
            }
            Thread.sleep(20);
        }
    }

    String uri() {
        return uri;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        if (process == null) {
            return;
        }
        process.destroy();
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
        try (var files = Files.walk(dir)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
