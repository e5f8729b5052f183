package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The partner of {@code POST /todos/{id}/share} is configurable the MicroProfile way: a server started with
 * {@code PARTNER_MP_REST_URL} (the environment's spelling of {@code partner/mp-rest/url}) shares with that server's
 * inbox, not its own; and a partner that cannot be reached is a 502 with problem details. Two instances of the
 * example, each a JVM of its own ({@link ExampleProcess}), so that each reads its own environment.
 */
class PartnerUrlTest {

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void aServerSharesWithThePartnerItIsConfiguredWithAndAnswers502WhenItCannotBeReached() throws Exception {
        ExampleProcess partner = ExampleProcess.start(List.of(), Map.of());
        ExampleProcess sharing;
        try {
            sharing = ExampleProcess.start(List.of(), Map.of("PARTNER_MP_REST_URL", partner.base().toString()));
        } catch (RuntimeException | AssertionError e) {
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
}
