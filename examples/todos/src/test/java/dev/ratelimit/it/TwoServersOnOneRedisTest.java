package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.redis.testing.RedisServerExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two instances of the example, each a JVM of its own ({@link ExampleProcess}) started with
 * {@code -Dratelimit.redis.uri}, on one real Redis: together they admit exactly the permit limit of
 * {@code GET /todos} (3 a minute per partition), where two in-process stores would admit 6.
 */
class TwoServersOnOneRedisTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void twoServersOnOneRedisAdmitExactlyThePermitLimitInTotal() throws Exception {
        List<ExampleProcess> servers = new ArrayList<>();
        try {
            List<URI> bases = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                ExampleProcess server = ExampleProcess.start(List.of("-Dratelimit.redis.uri=" + REDIS.uri()), Map.of());
                servers.add(server);
                bases.add(server.base());
            }
            for (ExampleProcess server : servers) {
                assertThat(server.output()).as("start-up line names the store").contains("ratelimit: store RedisRateLimitStore(");
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
            servers.forEach(ExampleProcess::close);
        }
    }

    /**
     * The admin API's reset on Redis is for every instance. A caller refused on both servers is let in on
     * the second after an operator reset its count through the first; the second's admin API sees the count anew.
     */
    @Test
    void aResetThroughOneServerLetsTheCallerInOnTheOther() throws Exception {
        List<ExampleProcess> servers = new ArrayList<>();
        try {
            List<URI> bases = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                ExampleProcess server = ExampleProcess.start(List.of("-Dratelimit.redis.uri=" + REDIS.uri()), Map.of());
                servers.add(server);
                bases.add(server.base());
            }
            URI a = bases.get(0);
            URI b = bases.get(1);
            String key = "reset-" + UUID.randomUUID();
            for (int i = 0; i < 3; i++) {
                assertThat(send(a, "GET", "todos", "X-Api-Key", key).statusCode()).isEqualTo(200);
            }
            assertThat(send(b, "GET", "todos", "X-Api-Key", key).statusCode()).isEqualTo(429);
            String count = "ratelimit/limits/default/partitions/X-Api-Key:" + key;
            assertThat(send(b, "GET", count, "Authorization", "Bearer ops:admin").body()).contains("\"remaining\":0");

            assertThat(send(a, "DELETE", count, "Authorization", "Bearer ops:admin").statusCode()).isEqualTo(204);

            assertThat(send(b, "GET", count, "Authorization", "Bearer ops:admin").body()).contains("\"remaining\":3");
            HttpResponse<String> in = send(b, "GET", "todos", "X-Api-Key", key);
            assertThat(in.statusCode()).as("let in on the other server after the reset").isEqualTo(200);
            assertThat(in.headers().firstValue("RateLimit-Remaining")).hasValue("2");
        } finally {
            servers.forEach(ExampleProcess::close);
        }
    }

    private HttpResponse<String> send(URI base, String method, String path, String header, String value) throws Exception {
        return http.send(HttpRequest.newBuilder(base.resolve(path)).header(header, value)
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
