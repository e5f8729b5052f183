package dev.ratelimit.examples.todos.quarkus;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Run against the packaged application started with an override given only at run time (the failsafe executions
 * {@code burst-strict-window} and {@code burst-token-bucket}: {@code RATELIMIT_LIMITS_BURST_ALGORITHM} in the
 * server's environment): the OpenAPI document, which Quarkus builds at build time with the extension's filter,
 * documents the {@code burst} limit with the algorithm the server enforces (a run-time override), because the
 * extension's start-up filter saw that the run-time configuration changes what the document says, and filtered it
 * again.
 */
class OpenApiRunTimeOverrideIT {

    @Test
    void theDocumentShowsTheAlgorithmGivenAtRunTime() throws Exception {
        String expected = System.getProperty("tck.burstAlgorithm");
        assertThat(expected).as("tck.burstAlgorithm, the run-time override of this run").isNotBlank();
        HttpRequest request = HttpRequest.newBuilder(URI.create(System.getProperty("tck.baseUrl") + "/q/openapi"))
                .header("Accept", "application/json").GET().build();
        HttpResponse<String> response = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1) // as the suite's callers: no h2c upgrade, which Vert.x may take
                .build().send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode create = new ObjectMapper().readTree(response.body()).at("/paths/~1todos/post");
        List<String> algorithms = new ArrayList<>();
        for (JsonNode limit : create.path("x-ratelimit")) {
            if (limit.path("name").asText().equals("burst")) {
                algorithms.add(limit.path("algorithm").asText());
            }
        }
        assertThat(algorithms).as("x-ratelimit of POST /todos: %s", create.path("x-ratelimit")).containsExactly(expected);
        assertThat(create.path("description").asText()).as("its description")
                .contains(expected.equals("STRICT_WINDOW") ? "Strict window" : "Token bucket");
    }
}
