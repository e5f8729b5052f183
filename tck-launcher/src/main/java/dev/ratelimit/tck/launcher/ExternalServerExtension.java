package dev.ratelimit.tck.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * <p>System properties (the runtime modules set them in their failsafe configuration):
 * <ul>
 *   <li>{@value #COMMAND}: the command, one argument per line; {@code {port}} stands for the free port chosen</li>
 *   <li>{@value #ENVIRONMENT}: {@code NAME=value} lines added to the environment, {@code {port}} too</li>
 *   <li>{@value #NAME}: the runtime's name in messages; {@value #READY_PATH}: what must answer 200
 *       (default {@code /todos/1}); {@value #START_TIMEOUT}: seconds to wait for it (default 300);
 *       {@value #LOG}: the server's output (default {@code target/tck-server.log})</li>
 *   <li>{@value #FAIL_ON_500}: {@code false} for a runtime that answers 500 for a while as it starts (Payara
 *       Micro); by default a 500 from the application before its first 200 fails the run at once</li>
 * </ul>
 * It sets {@code tck.baseUrl} to {@code http://127.0.0.1:<port>}.
 */
public final class ExternalServerExtension implements BeforeAllCallback {

    public static final String COMMAND = "tck.server.command";
    public static final String ENVIRONMENT = "tck.server.environment";
    public static final String NAME = "tck.server.name";
    public static final String READY_PATH = "tck.server.readyPath";
    public static final String START_TIMEOUT = "tck.server.startTimeoutSeconds";
    public static final String LOG = "tck.server.log";
    public static final String FAIL_ON_500 = "tck.server.failOn500";
    static final String BASE_URL = "tck.baseUrl";

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(ExternalServerExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        String command = System.getProperty(COMMAND);
        String given = System.getProperty(BASE_URL);
        if (command == null || command.isBlank() || (given != null && !given.isBlank())) {
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
        String port = Integer.toString(freePort());
        List<String> argv = new ArrayList<>();
        for (String line : lines(command)) {
            argv.add(line.replace("{port}", port));
        }
        Map<String, String> environment = new LinkedHashMap<>();
        for (String line : lines(System.getProperty(ENVIRONMENT, ""))) {
            int eq = line.indexOf('=');
            if (eq < 1) {
                throw new IllegalArgumentException(ENVIRONMENT + ": expected NAME=value, was '" + line + "'");
            }
            environment.put(line.substring(0, eq), line.substring(eq + 1).replace("{port}", port));
        }
        Path workDir = Path.of(System.getProperty("user.dir"));
        Path log = workDir.resolve(System.getProperty(LOG, "target/tck-server.log"));
        String base = "http://127.0.0.1:" + port;
        Duration timeout = Duration.ofSeconds(Long.getLong(START_TIMEOUT, 300));

        ServerProcess server = ServerProcess.start(name, argv, environment, workDir, log);
        try {
            server.awaitReady(URI.create(base + System.getProperty(READY_PATH, "/todos/1")), timeout,
                    !"false".equalsIgnoreCase(System.getProperty(FAIL_ON_500, "true").strip()));
        } catch (RuntimeException | Error e) {
            server.close();
            throw e;
        }
        System.setProperty(BASE_URL, base);
        return server;
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

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on the loopback interface", e);
        }
    }
}
