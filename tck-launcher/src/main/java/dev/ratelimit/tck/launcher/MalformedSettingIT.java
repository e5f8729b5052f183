package dev.ratelimit.tck.launcher;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A runtime started with a malformed {@code ratelimit.*} setting names the key and the value in its output, whatever
 * it does with the deployment's exception (Payara Micro logs only Weld's wrapper of it; the library logs the message
 * itself), and the application does not serve. One start per runtime: a runtime module runs this class in a failsafe
 * execution of its own, from this jar ({@code dependenciesToScan}), with the server's command ({@code tck.server.*},
 * as {@link ExternalServerExtension} reads them) carrying the malformed setting, and:
 * <ul>
 *   <li>{@value #KEY} and {@value #VALUE}: the setting, which one line of the output must name (the value quoted);</li>
 *   <li>{@value #FAILED}: a regular expression that finds the runtime's line saying the application failed, for a
 *       runtime that keeps running without it (then the application's path must not answer 200); unset, the process
 *       must exit with a status other than 0.</li>
 * </ul>
 */
public class MalformedSettingIT {

    public static final String KEY = "tck.malformed.key";
    public static final String VALUE = "tck.malformed.value";
    public static final String FAILED = "tck.malformed.failed";

    @Test
    void theOutputNamesTheKeyAndTheValueAndTheApplicationDoesNotServe() throws Exception {
        String key = required(KEY);
        String value = required(VALUE);
        String failed = System.getProperty(FAILED, "");
        String name = System.getProperty(ExternalServerExtension.NAME, "server") + " with " + key + "=" + value;
        Path workDir = Path.of(System.getProperty("user.dir"));
        Path log = workDir.resolve(System.getProperty(ExternalServerExtension.LOG, "target/tck-server-malformed.log"));
        Duration timeout = Duration.ofSeconds(Long.getLong(ExternalServerExtension.START_TIMEOUT, 300));

        ServerProcess server = ExternalServerExtension.start(name, required(ExternalServerExtension.COMMAND), workDir, log);
        try {
            if (failed.isBlank()) {
                OptionalInt status = server.awaitExit(timeout);
                assertTrue(status.isPresent(), name + ": still running after " + timeout.toSeconds() + " s; see " + log);
                assertNotEquals(0, status.getAsInt(), name + ": exited with status 0; see " + log);
            } else {
                assertTrue(server.awaitOutput(Pattern.compile(failed), timeout),
                        name + ": exited before it said the application failed (" + failed + "); see " + log);
                int port = server.awaitListening(ExternalServerExtension.listening(), timeout);
                URI probe = URI.create("http://127.0.0.1:" + port
                        + System.getProperty(ExternalServerExtension.READY_PATH, "/todos/1"));
                assertNotEquals(200, status(probe), name + ": " + probe + " answered 200: the application serves");
            }
            String quoted = "\"" + value + "\"";
            if (server.output().lines().noneMatch(line -> line.contains(key) && line.contains(quoted))) {
                fail(name + ": no line of its output names both " + key + " and " + quoted + "; see " + log);
            }
        } finally {
            server.close();
        }
    }

    private static int status(URI probe) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        return client.send(HttpRequest.newBuilder(probe).timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static String required(String property) {
        String value = System.getProperty(property, "");
        if (value.isBlank()) {
            throw new IllegalArgumentException(property + " is not set: this check has nothing to start or to look for");
        }
        return value.strip();
    }
}
