package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The embedded example over HTTP, in a JVM of its own started with a small table
 * ({@code -Dratelimit.max-tracked-partitions=200}): made-up {@code X-Api-Key}s by the hundred on {@code GET /todos} do
 * not switch {@code POST /login}'s protection off (docs/login-protection.md, "A flood of made-up keys does not switch
 * log-in protection off"); and a plan's value for a limit per address fails its start-up, naming the key
 * (docs/login-protection.md, "Plans do not split these counts").
 */
class LoginUnderFloodTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1).build();
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @Test
    void afterAFloodOfMadeUpApiKeysOnASmallTableTheSixthWrongPasswordFromAFreshAddressIs429() throws Exception {
        try (ExampleProcess example = ExampleProcess.start(List.of("-Dratelimit.max-tracked-partitions=200",
                "-Dratelimit.trusted-proxies=127.0.0.0/8,::1"), Map.of())) {
            URI base = example.base();
            for (int i = 0; i < 600; i++) {
                HttpResponse<String> todos = HTTP.send(HttpRequest.newBuilder(base.resolve("todos")).timeout(TIMEOUT)
                        .header("X-Api-Key", "flood-" + i).GET().build(), HttpResponse.BodyHandlers.ofString());
                assertThat(todos.statusCode()).as("made-up key %d", i).isEqualTo(200);
            }

            int[] statuses = new int[6];
            for (int i = 0; i < 6; i++) {
                String form = "username=" + URLEncoder.encode("nobody-after-the-flood", StandardCharsets.UTF_8)
                        + "&password=guess-" + i;
                statuses[i] = HTTP.send(HttpRequest.newBuilder(base.resolve("login")).timeout(TIMEOUT)
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .header("X-Forwarded-For", "198.51.100.77")
                        .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString())
                        .statusCode();
            }

            assertThat(statuses).as("six wrong passwords from a fresh address after the flood; output:%n%s",
                    example.output()).containsExactly(401, 401, 401, 401, 401, 429);
            assertThat(example.output()).as("the flooded limit said it had no room").contains("no room for a new count");
        }
    }

    @Test
    void aPlansValueForTheLimitPerAddressFailsStartUpNamingTheKey() throws Exception {
        try (ExampleProcess example = ExampleProcess.launch(
                List.of("-Dratelimit.plans.gold.limits.login-address.permit-limit=10"), Map.of())) {
            int status = example.awaitExit(ExampleProcess.START);

            assertThat(status).as("exit status; output:%n%s", example.output()).isNotZero();
            assertThat(example.output().lines()).as("the ERROR line names the key and the value")
                    .anySatisfy(line -> assertThat(line).startsWith("SEVERE: ")
                            .contains("ratelimit.plans.gold.limits.login-address.permit-limit=10", "per address"))
                    .noneSatisfy(line -> assertThat(line).startsWith("todos listening on"));
        }
    }
}
