package dev.ratelimit.tck.launcher;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts the server the {@code tck-tests} suite runs against, once per test run, before the first test
 * class, and stops it when the run ends (JUnit closes the root store), however it ends. Registered by
 * auto-detection ({@code junit.jupiter.extensions.autodetection.enabled=true}), so that the suite runs
 * unchanged. It does nothing unless {@value #COMMAND} is set, nor when {@code tck.baseUrl} already
 * names a server.
 *
 * <p>A server that cannot be started fails the first test class with the reason, and every later one with the
 * same failure, at once (it is not started again).
 *
 * <p>The server chooses its port itself (port 0, or the first free one of a range) and says where it listens: the
 * launcher reads the port from its output, so that no other process can take a port between a choice and a bind.
 *
 * <p>System properties (the runtime modules set them in their failsafe configuration):
 * <ul>
 *   <li>{@value #COMMAND}: the command, one argument per line; {@code {run}} stands for a text of this launch alone
 *       (for a directory of its own)</li>
 *   <li>{@value #ENVIRONMENT}: {@code NAME=value} lines added to the environment, {@code {run}} too</li>
 *   <li>{@value #LISTENING}: a regular expression that finds, in the line where the server says where it listens,
 *       the port as its first group</li>
 *   <li>{@value #NAME}: the runtime's name in messages; {@value #READY_PATH}: what must answer 200
 *       (default {@code /todos/1}); {@value #START_TIMEOUT}: seconds to wait for both (default 300);
 *       {@value #LOG}: the server's output (default {@code target/tck-server.log})</li>
 *   <li>{@value #FAIL_ON_500}: {@code false} for a runtime that answers 500 for a while as it starts (Payara
 *       Micro); by default a 500 from the application before its first 200 fails the run at once</li>
 * </ul>
 * It sets {@code tck.baseUrl} to {@code http://127.0.0.1:<port>}. A test class that starts servers itself
 * ({@link MalformedSettingIT}) is left alone.
 */
public final class ExternalServerExtension implements BeforeAllCallback {

    public static final String COMMAND = "tck.server.command";
    public static final String ENVIRONMENT = "tck.server.environment";
    public static final String LISTENING = "tck.server.listening";
    public static final String NAME = "tck.server.name";
    public static final String READY_PATH = "tck.server.readyPath";
    public static final String START_TIMEOUT = "tck.server.startTimeoutSeconds";
    public static final String LOG = "tck.server.log";
    public static final String FAIL_ON_500 = "tck.server.failOn500";
    static final String BASE_URL = "tck.baseUrl";

    private static final AtomicInteger RUNS = new AtomicInteger();
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(ExternalServerExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        String command = System.getProperty(COMMAND);
        String given = System.getProperty(BASE_URL);
        if (command == null || command.isBlank() || (given != null && !given.isBlank())
                || context.getRequiredTestClass() == MalformedSettingIT.class) {
            return;
        }
        Launch launch = context.getRoot().getStore(NAMESPACE).computeIfAbsent(Launch.class, key -> Launch.of(command),
                Launch.class);
        if (launch.failure() != null) {
            // remembered: a server that did not start is not started again for every test class
            throw launch.failure();
        }
    }

    /** The server started once per run, or why it could not be; JUnit closes it when the run ends. */
    private record Launch(ServerProcess server, RuntimeException failure) implements AutoCloseable {

        static Launch of(String command) {
            try {
                return new Launch(launch(command), null);
            } catch (RuntimeException e) {
                return new Launch(null, e);
            }
        }

        @Override
        public void close() {
            if (server != null) {
                server.close();
            }
        }
    }

    private static ServerProcess launch(String command) {
        String name = System.getProperty(NAME, "server");
        Pattern listening = listening();
        Path workDir = Path.of(System.getProperty("user.dir"));
        Path log = workDir.resolve(System.getProperty(LOG, "target/tck-server.log"));
        long startNanos = System.nanoTime();
        Duration timeout = Duration.ofSeconds(Long.getLong(START_TIMEOUT, 300));

        ServerProcess server = start(name, command, workDir, log);
        try {
            int port = server.awaitListening(listening, timeout);
            String base = "http://127.0.0.1:" + port;
            Duration left = timeout.minusNanos(System.nanoTime() - startNanos);
            server.awaitReady(URI.create(base + System.getProperty(READY_PATH, "/todos/1")),
                    left.isNegative() ? Duration.ZERO : left,
                    !"false".equalsIgnoreCase(System.getProperty(FAIL_ON_500, "true").strip()));
            System.setProperty(BASE_URL, base);
            return server;
        } catch (RuntimeException | Error e) {
            server.close();
            throw e;
        }
    }

    /** Starts the server of {@value #COMMAND} and {@value #ENVIRONMENT}, {@code {run}} replaced by a text of its own. */
    static ServerProcess start(String name, String command, Path workDir, Path log) {
        String run = ProcessHandle.current().pid() + "-" + RUNS.incrementAndGet();
        List<String> argv = new ArrayList<>();
        for (String line : lines(command)) {
            argv.add(line.replace("{run}", run));
        }
        Map<String, String> environment = new LinkedHashMap<>();
        for (String line : lines(System.getProperty(ENVIRONMENT, ""))) {
            int eq = line.indexOf('=');
            if (eq < 1) {
                throw new IllegalArgumentException(ENVIRONMENT + ": expected NAME=value, was '" + line + "'");
            }
            environment.put(line.substring(0, eq), line.substring(eq + 1).replace("{run}", run));
        }
        return ServerProcess.start(name, argv, environment, workDir, log);
    }

    /** {@value #LISTENING}, compiled; required. */
    static Pattern listening() {
        String regex = System.getProperty(LISTENING, "");
        if (regex.isBlank()) {
            throw new IllegalArgumentException(LISTENING + " is not set: a regular expression that finds the port in the "
                    + "line where the server says where it listens (its first group)");
        }
        try {
            return Pattern.compile(regex.strip());
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException(LISTENING + " is not a regular expression: '" + regex + "'", e);
        }
    }

    private static List<String> lines(String text) {
        List<String> lines = new ArrayList<>();
        for (String line : text.split("\\R")) {
            String trimmed = line.strip();
            if (!trimmed.isEmpty()) {
                lines.add(trimmed);
            }
        }
        return lines;
    }

}
