package dev.ratelimit.redis.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import redis.embedded.core.ExecutableProvider;

/**
 * One {@code redis-server} process on a loopback port, without persistence, for tests and benchmarks (plain Java, no
 * JUnit: {@link RedisServerExtension} wraps it for a test class).
 *
 * <p>Redis cannot listen on port 0 and report the port it got, so the first {@link #start()} picks a port that is free
 * now and starts Redis on it; when another process takes that port in between (Redis exits with "Address already in
 * use"), it picks another one and tries again, {@value #ATTEMPTS} times in all, then fails naming every port it
 * tried and the last log. A start only counts when the server that answers on the port is this process (its
 * {@code process_id}), not another Redis that won the port. A start after {@link #stop()} (an outage in a test) uses
 * the same port again, since clients were given it.
 */
public final class RedisServer implements AutoCloseable {

    static final int ATTEMPTS = 5;

    private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();
    private static final Pattern PORT_LOST = Pattern.compile(
            "Address already in use|Could not create server TCP listening socket|port number too high");
    private static volatile String defaultBinary;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(Process::destroyForcibly)));
    }

    private final String binary;
    private final List<String> extraArgs;
    private final IntSupplier ports;
    private Boolean debugCommandOption;
    private int port;
    private Process process;
    private Path dir;

    /**
     * @param binary    the {@code redis-server} to run (a path, or a name on the PATH); {@link #defaultBinary()}
     * @param extraArgs more {@code redis-server} arguments, e.g. {@code "--cluster-enabled", "yes"}
     */
    public RedisServer(String binary, List<String> extraArgs) {
        this(binary, extraArgs, RedisServer::freePort);
    }

    /** @param ports the ports to try, one per attempt (a test gives taken ones) */
    RedisServer(String binary, List<String> extraArgs, IntSupplier ports) {
        this.binary = binary;
        this.extraArgs = List.copyOf(extraArgs);
        this.ports = ports;
    }

    /**
     * The binary that {@code com.github.codemonstur:embedded-redis} ships (Redis 6.2), or {@code redis-server} from
     * the PATH if that binary cannot run here (e.g. the shared libraries it needs are missing).
     */
    public static synchronized String defaultBinary() throws IOException {
        if (defaultBinary == null) {
            File embedded = ExecutableProvider.newJarResourceProvider().get();
            if (!embedded.canExecute() && !embedded.setExecutable(true)) {
                throw new IOException("cannot make " + embedded + " executable");
            }
            String chosen = embedded.getAbsolutePath();
            if (!runs(chosen) && runs("redis-server")) {
                chosen = "redis-server";
            }
            defaultBinary = chosen;
        }
        return defaultBinary;
    }

    /** The port Redis listens on (0 before the first {@link #start()}). */
    public int port() {
        return port;
    }

    /** {@code redis://127.0.0.1:<port>}. */
    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** The process id of the running Redis. */
    public long pid() {
        return process.pid();
    }

    /**
     * Starts Redis and returns when it answers PING: the first time on a port it picks (again on another one if that
     * port was taken meanwhile), later on the same port. Does nothing while it runs.
     */
    public synchronized void start() throws IOException, InterruptedException {
        if (process != null && process.isAlive()) {
            return;
        }
        if (dir == null) {
            dir = Files.createTempDirectory("ratelimit-redis");
        }
        if (port != 0) {
            String failure = startOn(port);
            if (failure != null) {
                throw new IllegalStateException(binary + " did not start again on port " + port + ": " + failure);
            }
            return;
        }
        List<Integer> tried = new ArrayList<>();
        String failure = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            int candidate = ports.getAsInt();
            tried.add(candidate);
            failure = startOn(candidate);
            if (failure == null) {
                port = candidate;
                return;
            }
            if (!PORT_LOST.matcher(failure).find()) {
                break; // not a lost port: trying another one would fail the same way
            }
        }
        throw new IllegalStateException(binary + " did not start on ports " + tried + ": " + failure);
    }

    /** Null when Redis runs on {@code candidate} and answers; else why not (the process is gone then). */
    private String startOn(int candidate) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(binary, "--port", Integer.toString(candidate),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "no",
                "--dir", dir.toString(), "--daemonize", "no"));
        if (debugCommandOption == null) {
            debugCommandOption = debugCommandOption(binary);
        }
        if (debugCommandOption) {
            command.addAll(List.of("--enable-debug-command", "yes")); // Redis 7 refuses DEBUG SLEEP without it
        }
        command.addAll(extraArgs);
        Path log = dir.resolve("redis.log");
        Files.deleteIfExists(log);
        Process started = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        RUNNING.add(started);
        process = started;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (true) {
            if (!started.isAlive()) {
                RUNNING.remove(started);
                process = null;
                return "exited with " + started.exitValue() + ":\n" + Files.readString(log);
            }
            try (Resp resp = new Resp(candidate, 500)) { // the port may be another process' that never answers
                // the answer counts only from this process: another Redis may have won the port
                if ("PONG".equals(resp.call("PING")) && resp.string("INFO", "server")
                        .contains("process_id:" + started.pid() + "\r\n")) {
                    return null;
                }
            } catch (RuntimeException notYet) {
                // not listening yet
            }
            if (System.nanoTime() > deadline) {
                stop();
                return "no answer from it on port " + candidate + " within 15 s:\n" + Files.readString(log);
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

    /** Stops Redis and deletes its folder (its log). */
    @Override
    public synchronized void close() throws IOException, InterruptedException {
        stop();
        if (dir != null) {
            try (var files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
            dir = null;
        }
    }

    /**
     * Fails unless {@code server} runs and is Redis {@code major} or later: the message names the binary, what it
     * answered, and how to get Redis 7 or to skip that run.
     */
    public static void requireMajor(String server, int major) throws IOException, InterruptedException {
        String text;
        try {
            Process version = new ProcessBuilder(server, "--version").redirectErrorStream(true).start();
            text = new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            version.waitFor(10, TimeUnit.SECONDS);
        } catch (IOException e) {
            text = "cannot run it: " + e.getMessage();
        }
        Matcher found = Pattern.compile(" v=(\\d+)\\.").matcher(text);
        if (!found.find() || Integer.parseInt(found.group(1)) < major) {
            throw new IllegalStateException("These Redis tests run on Redis " + major + " or later (ratelimit.test.redis-major="
                    + major + "), but ratelimit.test.redis-server=" + server + " answers: " + text
                    + ". Install it (as root: apt-get install -y redis-server; .ci/run does) or name another binary "
                    + "with -Dratelimit.test.redis7-server=<path>; to leave that run out, -Dratelimit.test.redis7.skip=true.");
        }
    }

    /** True when {@code server} is Redis 7 or later, which has (and needs) {@code --enable-debug-command}. */
    private static boolean debugCommandOption(String server) throws IOException {
        Process version = new ProcessBuilder(server, "--version").redirectErrorStream(true).start();
        String text = new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Matcher major = Pattern.compile(" v=(\\d+)\\.").matcher(text);
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

    /** A port free now; Redis may still lose it to another process before it binds (see {@link #start()}). */
    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
