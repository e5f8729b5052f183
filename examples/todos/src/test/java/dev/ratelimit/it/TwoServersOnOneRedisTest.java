package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.examples.todos.Main;
import dev.ratelimit.redis.testing.RedisServerExtension;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two instances of the example, each a JVM of its own started as {@code java ... Main} with
 * {@code -Dratelimit.redis.uri}, on one real Redis: together they admit exactly the permit limit of
 * {@code GET /todos} (3 a minute per partition), where two in-process stores would admit 6.
 */
class TwoServersOnOneRedisTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void twoServersOnOneRedisAdmitExactlyThePermitLimitInTotal() throws Exception {
        List<Process> servers = new ArrayList<>();
        try {
            List<URI> bases = new ArrayList<>();
            List<Path> logs = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                int port = freePort();
                Path log = Files.createTempFile("todos-redis-" + i, ".log");
                logs.add(log);
                ProcessBuilder builder = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Dratelimit.redis.uri=" + REDIS.uri(),
                        "-cp", System.getProperty("java.class.path"), Main.class.getName())
                        .redirectError(log.toFile());
                builder.environment().put("PORT", Integer.toString(port));
                Process server = builder.start();
                servers.add(server);
                BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
                assertThat(out.readLine()).as("ready line of server " + i).startsWith("todos listening on ");
                bases.add(URI.create("http://127.0.0.1:" + port + "/"));
            }
            for (Path log : logs) {
                assertThat(Files.readString(log)).as("start-up line names the store")
                        .contains("ratelimit: store RedisRateLimitStore(");
            }

            String key = "two-servers-" + UUID.randomUUID();
            List<Integer> statuses = new ArrayList<>();
            List<String> remaining = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(bases.get(i % 2).resolve("todos"))
                        .header("X-Api-Key", key).timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.ofString());
                statuses.add(response.statusCode());
                remaining.add(response.headers().firstValue("RateLimit-Remaining").orElse("none"));
            }
            assertThat(statuses).as("alternating between the two servers").containsExactly(200, 200, 200, 429, 429, 429, 429, 429);
            assertThat(remaining).containsExactly("2", "1", "0", "0", "0", "0", "0", "0");
        } finally {
            for (Process server : servers) {
                server.destroy();
                if (!server.waitFor(10, TimeUnit.SECONDS)) {
                    server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
