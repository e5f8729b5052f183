package dev.ratelimit.redis.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import redis.embedded.core.ExecutableProvider;

/**
 * A real Redis for one test class, on a free loopback port: the binary that
 * {@code com.github.codemonstur:embedded-redis} ships (Redis 6.2; {@code redis-server} from the PATH
 * if that binary cannot run here), or the one named by the system property
 * {@code ratelimit.test.redis-server} (a path, or a name on the PATH, e.g. {@code redis-server} for the
 * system's Redis 7). Without persistence. Always stopped after the class (and by a shutdown
 * hook if the JVM ends first); {@link #stop()} and {@link #start()} let a test cause an outage.
 *
 * <p>Use as {@code @RegisterExtension static final RedisServerExtension REDIS = new RedisServerExtension();}
 */
public final class RedisServerExtension implements BeforeAllCallback, AfterAllCallback {

    public static final String BINARY_PROPERTY = "ratelimit.test.redis-server";

    private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();
    private static volatile String binary;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(Process::destroyForcibly)));
    }

    private final List<String> extraArgs;
    private int port;
    private Process process;
    private Path dir;

    /** @param extraArgs more {@code redis-server} arguments, e.g. {@code "--cluster-enabled", "yes"} */
    public RedisServerExtension(String... extraArgs) {
        this.extraArgs = List.of(extraArgs);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        startOnFreePort();
    }

    /** Starts Redis on a free port, outside JUnit (a main); {@link #stop()} it. */
    public RedisServerExtension startOnFreePort() throws IOException, InterruptedException {
        port = freePort();
        dir = Files.createTempDirectory("ratelimit-redis-test");
        start();
        return this;
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        stop();
        deleteDir();
    }

    /** Stops Redis and deletes its folder (its log); for a main that used {@link #startOnFreePort()}. */
    public void close() throws IOException, InterruptedException {
        stop();
        deleteDir();
    }

    private void deleteDir() throws IOException {
        if (dir != null) {
            try (var files = Files.walk(dir)) {
                for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    public int port() {
        return port;
    }

    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** A new bare client; close it. */
    public Resp client() {
        return new Resp(port);
    }

    /** Starts Redis on this extension's port (again, after {@link #stop()}); returns when it answers PING. */
    public synchronized void start() throws IOException, InterruptedException {
        if (process != null && process.isAlive()) {
            return;
        }
        String server = binary();
        List<String> command = new ArrayList<>(List.of(server, "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--protected-mode", "no", "--dir", dir.toString(),
                "--daemonize", "no"));
        if (debugCommandOption(server)) {
            command.addAll(List.of("--enable-debug-command", "yes")); // Redis 7 refuses DEBUG SLEEP without it
        }
        command.addAll(extraArgs);
        File log = dir.resolve("redis.log").toFile();
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log)).start();
        RUNNING.add(process);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (true) {
            if (!process.isAlive()) {
                RUNNING.remove(process);
                throw new IllegalStateException(server + " exited with " + process.exitValue() + ":\n"
                        + Files.readString(log.toPath()));
            }
            try (Resp resp = new Resp(port)) {
                if ("PONG".equals(resp.call("PING"))) {
                    return;
                }
            } catch (RuntimeException notYet) {
                if (System.nanoTime() > deadline) {
                    stop();
                    throw new IllegalStateException(server + " did not answer on port " + port + ":\n"
                            + Files.readString(log.toPath()), notYet);
                }
            }
            Thread.sleep(20);
        }
    }

    /** Stops Redis (SIGTERM, then SIGKILL after 5 s); returns once the process has exited. */
    public synchronized void stop() throws InterruptedException {
        Process p = process;
        if (p == null) {
            return;
        }
        p.destroy();
        if (!p.waitFor(5, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
        RUNNING.remove(p);
        process = null;
    }

    /** The process id of the running Redis. */
    public long pid() {
        return process.pid();
    }

    private static synchronized String binary() throws IOException {
        if (binary == null) {
            String configured = System.getProperty(BINARY_PROPERTY, "").strip();
            if (!configured.isEmpty()) {
                binary = configured;
            } else {
                File embedded = ExecutableProvider.newJarResourceProvider().get();
                if (!embedded.canExecute() && !embedded.setExecutable(true)) {
                    throw new IOException("cannot make " + embedded + " executable");
                }
                binary = embedded.getAbsolutePath();
                if (!runs(binary) && runs("redis-server")) {
                    binary = "redis-server"; // e.g. a machine without the shared libraries the embedded build needs
                }
            }
        }
        return binary;
    }

    /** True when {@code server} is Redis 7 or later, which has (and needs) {@code --enable-debug-command}. */
    private static boolean debugCommandOption(String server) throws IOException {
        Process version = new ProcessBuilder(server, "--version").redirectErrorStream(true).start();
        String text = new String(version.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        java.util.regex.Matcher major = java.util.regex.Pattern.compile(" v=(\\d+)\\.").matcher(text);
        return major.find() && Integer.parseInt(major.group(1)) >= 7;
    }

    private static boolean runs(String server) {
        try {
            Process version = new ProcessBuilder(server, "--version").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return version.waitFor(10, TimeUnit.SECONDS) && version.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
