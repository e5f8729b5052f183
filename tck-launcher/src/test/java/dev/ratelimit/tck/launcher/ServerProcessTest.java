package dev.ratelimit.tck.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** No process outlives {@link ServerProcess#close()}: not the server, not what it started, not the watchdog. */
class ServerProcessTest {

    private static final Pattern LISTENING = Pattern.compile("listening on [0-9.]+:(\\d+)");

    @TempDir
    Path dir;

    @Test
    void closeStopsTheServerAndAnOrphanItLeftInItsGroup() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setsid")), "process groups need setsid (Linux)");
        // A grandchild whose parent exits at once is no longer a descendant of the server: only the
        // process group reaches it (as with a start script that forks the real server and returns).
        String orphan = "sleep " + (100_000 + ThreadLocalRandom.current().nextInt(100_000));
        String server = "sleep " + (200_000 + ThreadLocalRandom.current().nextInt(100_000));
        ServerProcess process = ServerProcess.start("test", List.of("sh", "-c", "(" + orphan + " &); exec " + server),
                Map.of(), dir, dir.resolve("server.log"));
        awaitRunning(orphan);
        awaitRunning(server);
        awaitRunning("tck-launcher-watchdog " + ProcessHandle.current().pid() + " " + process.pid());

        process.close();

        assertThat(running(orphan)).as("the orphan in the server's group").isFalse();
        assertThat(running(server)).as("the server").isFalse();
        assertThat(running("tck-launcher-watchdog " + ProcessHandle.current().pid() + " " + process.pid()))
                .as("its watchdog").isFalse();
        process.close(); // idempotent
    }

    @Test
    void serverThatExitsBeforeAnsweringFailsAtOnceWithItsOutput() {
        ServerProcess process = ServerProcess.start("test", List.of("sh", "-c", "echo cannot bind the port; exit 3"),
                Map.of(), dir, dir.resolve("server.log"));
        try {
            assertThatThrownBy(() -> process.awaitReady(URI.create("http://127.0.0.1:9/"), Duration.ofSeconds(60)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("exited with status 3")
                    .hasMessageContaining("cannot bind the port");
        } finally {
            process.close();
        }
    }

    @Test
    @Timeout(120) // a wait without a deadline fails here, instead of hanging the build
    void thePortIsReadFromTheLineWhereTheServerSaysWhereItListens() {
        ServerProcess process = ServerProcess.start("test", List.of("sh", "-c",
                "echo starting on port 1; sleep 1; printf 'ready: listening on 127.0.0.1:4321\\n'; exec sleep 60"),
                Map.of(), dir, dir.resolve("server.log"));
        try {
            assertThat(process.awaitListening(LISTENING, Duration.ofSeconds(60))).isEqualTo(4321);
        } finally {
            process.close();
        }
    }

    @Test
    @Timeout(120) // a wait without a deadline fails here, instead of hanging the build
    void aServerThatNeverSaysWhereItListensFailsAtTheDeadlineAndIsStopped() {
        ServerProcess process = ServerProcess.start("test", List.of("sh", "-c", "echo starting; exec sleep 600"),
                Map.of(), dir, dir.resolve("server.log"));
        try {
            long start = System.nanoTime();
            assertThatThrownBy(() -> process.awaitListening(LISTENING, Duration.ofSeconds(2)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("within 2 s")
                    .hasMessageContaining("starting");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("it gave up at its deadline, not later")
                    .isLessThan(Duration.ofSeconds(30));
        } finally {
            process.close();
        }
        assertThat(process.isAlive()).isFalse();
    }

    @Test
    @Timeout(120) // a wait without a deadline fails here, instead of hanging the build
    void aServerThatExitsBeforeSayingWhereItListensFailsAtOnceWithItsOutput() {
        ServerProcess process = ServerProcess.start("test", List.of("sh", "-c", "echo port 8080 is taken; exit 4"),
                Map.of(), dir, dir.resolve("server.log"));
        try {
            assertThatThrownBy(() -> process.awaitListening(LISTENING, Duration.ofSeconds(60)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("exited with status 4")
                    .hasMessageContaining("port 8080 is taken");
        } finally {
            process.close();
        }
    }

    @Test
    void applicationThatAnswers500FailsAtOnceInsteadOfBeingAskedAgain() throws Exception {
        // the application's answer comes from this JVM; the process only has to be alive
        HttpServer failing = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        AtomicInteger asked = new AtomicInteger();
        failing.createContext("/", exchange -> {
            asked.incrementAndGet();
            exchange.sendResponseHeaders(500, -1);
            exchange.close();
        });
        failing.start();
        ServerProcess process = ServerProcess.start("test", List.of("sleep", "60"), Map.of(), dir, dir.resolve("server.log"));
        try {
            URI probe = URI.create("http://127.0.0.1:" + failing.getAddress().getPort() + "/todos/1");
            assertThatThrownBy(() -> process.awaitReady(probe, Duration.ofSeconds(60)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("answered 500");
            assertThat(asked).hasValue(1);
        } finally {
            process.close();
            failing.stop(0);
        }
    }

    @Test
    void aRuntimeKnownToAnswer500WhileItStartsIsAskedAgainUntil200() throws Exception {
        HttpServer starting = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        AtomicInteger asked = new AtomicInteger();
        starting.createContext("/", exchange -> {
            exchange.sendResponseHeaders(asked.incrementAndGet() <= 2 ? 500 : 200, -1);
            exchange.close();
        });
        starting.start();
        ServerProcess process = ServerProcess.start("test", List.of("sleep", "60"), Map.of(), dir, dir.resolve("server.log"));
        try {
            URI probe = URI.create("http://127.0.0.1:" + starting.getAddress().getPort() + "/todos/1");
            process.awaitReady(probe, Duration.ofSeconds(60), false);
            assertThat(asked).hasValue(3);
        } finally {
            process.close();
            starting.stop(0);
        }
    }

    @Test
    void environmentAndWorkingDirectoryReachTheServer() throws Exception {
        ServerProcess process = ServerProcess.start("test", List.of("sh", "-c", "echo \"$GREETING\" > out.txt"),
                Map.of("GREETING", "hello"), dir, dir.resolve("server.log"));
        try {
            Path out = dir.resolve("out.txt");
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while ((!Files.exists(out) || Files.readString(out).isBlank()) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(Files.readString(out).strip()).isEqualTo("hello");
        } finally {
            process.close();
        }
    }

    private static void awaitRunning(String commandLine) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!running(commandLine)) {
            assertThat(System.nanoTime()).as("%s started", commandLine).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    private static boolean running(String commandLine) {
        return ProcessHandle.allProcesses().anyMatch(p -> commandLine(p).contains(commandLine));
    }

    /** The full command line, from /proc (ProcessHandle.Info truncates it on Linux). */
    private static String commandLine(ProcessHandle p) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()), "cmdline"))).replace('\0', ' ');
        } catch (IOException | RuntimeException e) {
            return p.info().commandLine().orElse("");
        }
    }
}
