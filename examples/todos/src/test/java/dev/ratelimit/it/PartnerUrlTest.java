package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.examples.todos.Main;
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
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The partner of {@code POST /todos/{id}/share} (SPEC 20) is configurable the MicroProfile way: a server started with
 * {@code PARTNER_MP_REST_URL} (the environment's spelling of {@code partner/mp-rest/url}) shares with that server's
 * inbox, not its own; and a partner that cannot be reached is a 502 with problem details. Two instances of the
 * example, each a JVM of its own ({@code java ... Main}), so that each reads its own environment.
 */
class PartnerUrlTest {

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void aServerSharesWithThePartnerItIsConfiguredWithAndAnswers502WhenItCannotBeReached() throws Exception {
        Server partner = Server.start(Map.of());
        Server sharing;
        try {
            sharing = Server.start(Map.of("PARTNER_MP_REST_URL", partner.base().toString()));
        } catch (IOException | RuntimeException | AssertionError e) {
            partner.close();
            throw e;
        }
        try (sharing) {
            try (partner) {
                HttpResponse<String> shared = post(sharing.base().resolve("todos/1/share"), "");
                assertThat(shared.statusCode()).as("%s", shared.body()).isEqualTo(204);

                // the share reached the partner's inbox (600 a minute for all its callers together), not its own
                String message = "{\"id\": 1, \"title\": \"probe\", \"done\": false}";
                assertThat(post(partner.base().resolve("partner/inbox"), message).headers().firstValue("RateLimit"))
                        .hasValueSatisfying(state -> assertThat(state).contains("\"inbox\";r=598;"));
                assertThat(post(sharing.base().resolve("partner/inbox"), message).headers().firstValue("RateLimit"))
                        .hasValueSatisfying(state -> assertThat(state).contains("\"inbox\";r=599;"));
            }
            // the partner is gone
            HttpResponse<String> unreachable = post(sharing.base().resolve("todos/1/share"), "");
            assertThat(unreachable.statusCode()).as("%s", unreachable.body()).isEqualTo(502);
            assertThat(unreachable.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(unreachable.body()).contains("\"status\":502", "The partner could not be reached.");
            assertThat(unreachable.headers().firstValue("RateLimit")).as("the share was decided: its headers")
                    .hasValueSatisfying(state -> assertThat(state).contains("\"module\";r=99;", "\"partner\";"));
        }
    }

    private HttpResponse<String> post(URI uri, String json) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .header("X-Api-Key", "partner-url-" + UUID.randomUUID());
        if (json.isEmpty()) {
            request.POST(HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json));
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The example in a JVM of its own, on a free port, with {@code environment} added to this JVM's. */
    private record Server(Process process, URI base, Path log) implements AutoCloseable {

        static Server start(Map<String, String> environment) throws IOException {
            int port = freePort();
            Path log = Files.createTempFile("todos-partner-", ".log");
            ProcessBuilder builder = new ProcessBuilder(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), Main.class.getName())
                    .redirectError(log.toFile());
            builder.environment().putAll(environment);
            builder.environment().put("PORT", Integer.toString(port));
            Process process = builder.start();
            Server server = new Server(process, URI.create("http://127.0.0.1:" + port + "/"), log);
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                assertThat(out.readLine()).as("ready line (log: %s)", log).startsWith("todos listening on ");
            } catch (IOException | RuntimeException | AssertionError e) {
                server.close();
                throw e;
            }
            return server;
        }

        @Override
        public void close() {
            process.destroy();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }

        private static int freePort() throws IOException {
            try (ServerSocket socket = new ServerSocket(0)) {
                return socket.getLocalPort();
            }
        }
    }
}
