package dev.ratelimit.tck.launcher;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A server in a child process that never outlives the JVM that started it. Three guards stop it:
 * {@link #close()} (the suite ended, passed or failed), a shutdown hook (Ctrl-C, {@code System.exit}, a
 * fork that Maven abandons), and a watchdog process that stops it once this JVM is gone without running
 * its hooks ({@code kill -9}). On Linux the server runs in a session and process group of its own
 * ({@code setsid}), so that stopping it reaches every process it started, even one whose parent exited,
 * and a Ctrl-C in the terminal reaches it only through this JVM.
 *
 * <p>One job: the life of one server process, from its start to its stop. Waiting for it to listen, to write a line
 * and to answer belongs to it: each wait must notice the process exiting, and each failure shows the end of its log.
 *
 * <p>Thread-safety: {@link #close()} is synchronized and idempotent (the shutdown hook may race the
 * normal close); everything else is called by the thread that started the server.
 */
public final class ServerProcess implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit.tck.launcher");
    private static final Path SETSID = Path.of("/usr/bin/setsid");
    private static final Duration GRACE = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofMillis(250);
    private static final Duration OUTPUT_POLL = Duration.ofMillis(100);
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(30);
    private static final int LOG_TAIL_LINES = 60;

    private final String name;
    private final Process process;
    private final boolean ownGroup;
    private final Process watchdog;
    private final Path log;
    private final Thread shutdownHook;
    /** Where the server's own output starts in {@link #log}, after the command line written above it. */
    private final long outputStart;
    private final long startedNanos = System.nanoTime();
    private boolean closed;

    private ServerProcess(String name, Process process, boolean ownGroup, Process watchdog, Path log, long outputStart) {
        this.name = name;
        this.outputStart = outputStart;
        this.process = process;
        this.ownGroup = ownGroup;
        this.watchdog = watchdog;
        this.log = log;
        this.shutdownHook = new Thread(this::close, "tck-launcher-stop-" + name);
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Starts {@code command} in {@code workDir}, with {@code environment} added to this JVM's, its output
     * appended to {@code log}.
     */
    public static ServerProcess start(String name, List<String> command, Map<String, String> environment,
                                      Path workDir, Path log) {
        boolean ownGroup = Files.isExecutable(SETSID);
        List<String> argv = new ArrayList<>();
        if (ownGroup) {
            argv.add(SETSID.toString());
        }
        argv.addAll(command);
        try {
            Files.createDirectories(log.toAbsolutePath().getParent());
            byte[] header = ("$ " + String.join(" ", command) + System.lineSeparator()).getBytes(StandardCharsets.UTF_8);
            Files.write(log, header);
            ProcessBuilder builder = new ProcessBuilder(argv).directory(workDir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(nullDevice()));
            builder.environment().putAll(environment);
            Process process = builder.start();
            Process watchdog = ownGroup ? watchdog(process.pid()) : null;
            LOG.log(Level.INFO, name + ": started pid " + process.pid() + ": " + String.join(" ", command)
                    + " (output in " + log + ")");
            return new ServerProcess(name, process, ownGroup, watchdog, log, header.length);
        } catch (IOException e) {
            throw new UncheckedIOException(name + ": could not start " + command, e);
        }
    }

    /**
     * Waits until the server says where it listens: a line of its output in which {@code listening} finds the port, its
     * first group. The server chose the port itself (port 0, or the first free one of a range): no other process can
     * have taken it between a choice and a bind. The output is read from the log file as it grows, never from a pipe,
     * so that nothing here blocks past the deadline.
     *
     * @return the port
     * @throws IllegalStateException when the process exits first or the time runs out; with the end of its output
     */
    public int awaitListening(Pattern listening, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long offset = outputStart;
        StringBuilder line = new StringBuilder();
        while (true) {
            boolean exited = !process.isAlive(); // read once more after the exit: its last lines are in the file
            try (FileChannel output = FileChannel.open(log, StandardOpenOption.READ)) {
                ByteBuffer buffer = ByteBuffer.allocate(8192);
                for (int n = output.read(buffer, offset); n > 0; n = output.read(buffer.clear(), offset)) {
                    offset += n;
                    for (int i = 0; i < n; i++) {
                        char c = (char) (buffer.get(i) & 0xff); // the port's digits are ASCII whatever the encoding
                        if (c != '\n') {
                            line.append(c);
                            continue;
                        }
                        Matcher found = listening.matcher(line);
                        if (found.find()) {
                            int port = Integer.parseInt(found.group(1));
                            LOG.log(Level.INFO, name + ": listens on port " + port);
                            return port;
                        }
                        line.setLength(0);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(name + ": cannot read its output " + log, e);
            }
            if (exited) {
                throw new IllegalStateException(name + " exited with status " + process.exitValue()
                        + " before it said where it listens (a line matching " + listening + ")" + tail());
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(name + ": no line of its output matched " + listening + " within "
                        + timeout.toSeconds() + " s" + tail());
            }
            sleep(OUTPUT_POLL);
        }
    }

    /**
     * Waits until the server's output has a line that {@code pattern} finds, or the process exits, whichever comes
     * first.
     *
     * @return whether such a line was found
     * @throws IllegalStateException when the time runs out first; with the end of its output
     */
    public boolean awaitOutput(Pattern pattern, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            boolean exited = !process.isAlive();
            if (output().lines().anyMatch(l -> pattern.matcher(l).find())) {
                return true;
            }
            if (exited) {
                return false;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(name + ": no line of its output matched " + pattern + " within "
                        + timeout.toSeconds() + " s, and it still runs" + tail());
            }
            sleep(OUTPUT_POLL);
        }
    }

    /** What the server has written so far (after the command line this class wrote at the top of the log). */
    public String output() {
        try {
            byte[] all = Files.readAllBytes(log);
            int start = (int) Math.min(outputStart, all.length);
            return new String(all, start, all.length - start, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(name + ": cannot read its output " + log, e);
        }
    }

    /** Whether the server's process still runs. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Waits up to {@code timeout} for the server's process to exit on its own.
     *
     * @return its exit status, or empty when it still runs
     */
    public OptionalInt awaitExit(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? OptionalInt.of(process.exitValue())
                    : OptionalInt.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(name + ": interrupted while waiting for it to exit", e);
        }
    }

    /**
     * Waits until {@code GET probe} answers 200. Each attempt sends an {@code X-Api-Key} of its own, so
     * that waiting spends from no count the suite uses.
     *
     * @throws IllegalStateException when the process exits first, the probe is answered with 500 (an application
     *                               error, not a server still starting), or the time runs out; with the end of its output
     */
    public Duration awaitReady(URI probe, Duration timeout) {
        return awaitReady(probe, timeout, true);
    }

    /**
     * {@link #awaitReady(URI, Duration)}; with {@code failOn500} false, a 500 counts as "not ready yet" (Payara
     * Micro answers 500 with an empty body for a moment after it deployed the application), and is only
     * reported, with the number of such answers, once the probe is answered with 200.
     */
    public Duration awaitReady(URI probe, Duration timeout, boolean failOn500) {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "no answer";
        int errors = 0;
        for (int attempt = 1; System.nanoTime() < deadline; attempt++) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with status " + process.exitValue()
                        + " before " + probe + " answered" + tail());
            }
            try {
                HttpResponse<Void> response = client.send(HttpRequest.newBuilder(probe)
                        .header("X-Api-Key", "tck-launcher-ready-" + attempt)
                        .timeout(probeTimeout(deadline)).GET().build(), HttpResponse.BodyHandlers.discarding());
                if (response.statusCode() == 200) {
                    Duration took = Duration.ofNanos(System.nanoTime() - startedNanos);
                    LOG.log(Level.INFO, name + ": the application answers at " + probe + ", " + seconds(took)
                            + " s after the start; RSS " + rssMiB() + " MiB"
                            + (errors == 0 ? "" : " (after " + errors + (errors == 1 ? " answer" : " answers") + " 500)"));
                    return took;
                }
                if (response.statusCode() == 500) {
                    // a server still starting answers 404 or 503, or not at all; a 500 is the application failing
                    // (on Open Liberty, its first JSON answers once did), unless the runtime is known to answer 500
                    // while it starts
                    if (failOn500) {
                        throw new IllegalStateException(name + ": " + probe + " answered 500 before it answered 200: "
                                + "the application fails (its first requests would too), see its log" + tail());
                    }
                    errors++;
                }
                last = "status " + response.statusCode();
            } catch (IOException e) {
                last = e.toString();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(name + ": interrupted while waiting for " + probe, e);
            }
            sleep(POLL);
        }
        throw new IllegalStateException(name + ": " + probe + " did not answer 200 within " + timeout.toSeconds()
                + " s (last: " + last + ")" + tail());
    }

    /**
     * How long one readiness probe may wait for its answer: the first request to a runtime that initialises
     * lazily (Payara, on a busy machine) can take many seconds; abandoning it only makes the server log a
     * broken connection and ask the next probe to wait again. Up to {@link #PROBE_TIMEOUT}, within the deadline.
     */
    private static Duration probeTimeout(long deadlineNanos) {
        long left = deadlineNanos - System.nanoTime();
        return Duration.ofNanos(Math.max(TimeUnit.SECONDS.toNanos(1), Math.min(PROBE_TIMEOUT.toNanos(), left)));
    }

    /** The server's process id (on Linux also its process group's). */
    public long pid() {
        return process.pid();
    }

    /** The resident memory of the server's process tree in MiB, or -1 where /proc cannot tell. */
    public long rssMiB() {
        long kib = 0;
        for (ProcessHandle handle : tree()) {
            long one = rssKiB(handle.pid());
            if (one < 0) {
                return -1;
            }
            kib += one;
        }
        return kib / 1024;
    }

    /** Stops the server and everything it started: TERM, then KILL after a grace period. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        long stopping = System.nanoTime();
        List<ProcessHandle> tree = tree();
        long rss = rssMiB();
        signal(tree, false);
        boolean stopped = awaitExit(tree, GRACE);
        if (!stopped) {
            LOG.log(Level.WARNING, name + ": still running " + GRACE.toSeconds() + " s after TERM; killing it");
            signal(tree, true);
            awaitExit(tree, Duration.ofSeconds(10));
        }
        if (watchdog != null) {
            watchdog.destroyForcibly();
            try {
                watchdog.waitFor(10, TimeUnit.SECONDS); // gone (and reaped) when close() returns
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // this is the shutdown hook running
        }
        LOG.log(Level.INFO, name + ": stopped in " + seconds(Duration.ofNanos(System.nanoTime() - stopping))
                + " s (ran " + seconds(Duration.ofNanos(stopping - startedNanos)) + " s; RSS at the end " + rss
                + " MiB)");
    }

    private List<ProcessHandle> tree() {
        List<ProcessHandle> tree = new ArrayList<>();
        ProcessHandle root = process.toHandle();
        tree.add(root);
        try (Stream<ProcessHandle> descendants = root.descendants()) {
            descendants.forEach(tree::add);
        }
        return tree;
    }

    private void signal(List<ProcessHandle> tree, boolean kill) {
        if (ownGroup) {
            run("kill", kill ? "-KILL" : "-TERM", "--", "-" + process.pid());
        }
        for (ProcessHandle handle : tree) {
            if (kill) {
                handle.destroyForcibly();
            } else {
                handle.destroy();
            }
        }
    }

    private static boolean awaitExit(List<ProcessHandle> tree, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (ProcessHandle handle : tree) {
            long left = deadline - System.nanoTime();
            if (left <= 0 && handle.isAlive()) {
                return false;
            }
            try {
                handle.onExit().get(Math.max(left, 1), TimeUnit.NANOSECONDS);
            } catch (Exception e) {
                if (handle.isAlive()) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Stops the server's process group once this JVM is gone: the guard for a JVM killed without hooks. */
    private static Process watchdog(long serverPid) throws IOException {
        // "kill -SIG -PGID" without "--": dash's kill takes no "--"
        String script = "while kill -0 \"$1\" 2>/dev/null; do sleep 1; done; "
                + "kill -TERM -\"$2\" 2>/dev/null; "
                + "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do "
                + "kill -0 -\"$2\" 2>/dev/null || exit 0; sleep 1; done; kill -KILL -\"$2\" 2>/dev/null";
        return new ProcessBuilder(SETSID.toString(), "sh", "-c", script, "tck-launcher-watchdog",
                Long.toString(ProcessHandle.current().pid()), Long.toString(serverPid))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectInput(ProcessBuilder.Redirect.from(nullDevice()))
                .start();
    }

    private static void run(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "could not run " + String.join(" ", command) + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static long rssKiB(long pid) {
        Path status = Path.of("/proc", Long.toString(pid), "status");
        try {
            for (String line : Files.readAllLines(status, StandardCharsets.UTF_8)) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
            return 0;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private String tail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            List<String> last = lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size());
            return "; the end of " + log + ":" + System.lineSeparator() + String.join(System.lineSeparator(), last);
        } catch (IOException | RuntimeException e) {
            return "; see " + log;
        }
    }

    private static File nullDevice() {
        return new File(System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
    }

    private static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f", d.toMillis() / 1000.0);
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
