package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratelimit.examples.todos.TodosServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The embedded example starts and serves its API. Each test sends its own {@code X-Api-Key}, so that no
 * test spends from another's count. (Kept out of the packages Jersey scans, see TodosServer.)
 */
class TodosServerSmokeTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static TodosServer server;
    private static HttpClient client;

    @BeforeAll
    static void start() {
        server = TodosServer.start(0);
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void listensOnLoopbackAtTheReportedPort() {
        assertThat(server.port()).isPositive();
        assertThat(server.baseUri()).isEqualTo(URI.create("http://127.0.0.1:" + server.port() + "/"));
    }

    @Test
    void seededTodoIsServed() throws Exception {
        HttpResponse<String> response = send(get("/todos/1"));

        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode todo = JSON.readTree(response.body());
        assertThat(todo.get("id").asLong()).isEqualTo(1);
        assertThat(todo.get("title").asText()).isEqualTo("Write the spec");
        assertThat(todo.get("done").isBoolean()).isTrue();
    }

    @Test
    void listIsAJsonArrayOfTodos() throws Exception {
        HttpResponse<String> response = send(get("/todos"));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/json"));
        JsonNode todos = JSON.readTree(response.body());
        assertThat(todos.isArray()).isTrue();
        assertThat(todos).isNotEmpty().allSatisfy(
                todo -> assertThat(todo.fieldNames()).toIterable().containsExactlyInAnyOrder("id", "title", "done"));
    }

    @Test
    void libraryProvidersSeeTheModuleLimitOfTheApplicationClass() throws Exception {
        HttpResponse<String> response = send(get("/todos/2"));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("RateLimit-Policy")).hasValue("\"module\";q=100;w=60");
    }

    @Test
    void nonNumericIdIsNotFound() throws Exception {
        assertThat(send(get("/todos/not-a-number")).statusCode()).isEqualTo(404);
        assertThat(send(get("/todos/987654321")).statusCode()).isEqualTo(404);
    }

    @Test
    void exportPathWinsOverTheIdTemplateAndIsCsv() throws Exception {
        HttpResponse<String> response = send(get("/todos/export"));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("text/csv"));
        assertThat(response.body()).startsWith("id,title,done\r\n1,Write the spec,");
    }

    @Test
    void createdTodoHasALocationAndItsTitleCannotBeTakenTwice() throws Exception {
        String title = "smoke " + UUID.randomUUID();

        HttpResponse<String> created = send(post("{\"title\": \"" + title + "\"}"));
        assertThat(created.statusCode()).isEqualTo(201);
        URI location = URI.create(created.headers().firstValue("Location").orElseThrow());
        assertThat(JSON.readTree(created.body()).get("title").asText()).isEqualTo(title);
        assertThat(send(HttpRequest.newBuilder(location).header("X-Api-Key", freshKey()).build()).statusCode())
                .isEqualTo(200);

        assertThat(send(post("{\"title\": \"" + title + "\"}")).statusCode()).isEqualTo(409);
    }

    @Test
    void bodyThatDoesNotBindIsBadRequest() throws Exception {
        assertThat(send(post("{\"title\": ")).statusCode()).isEqualTo(400);
        assertThat(send(post("{}")).statusCode()).isEqualTo(400);
        assertThat(send(post("{\"title\": \"  \"}")).statusCode()).isEqualTo(400);
        assertThat(send(post("{\"title\": 5}")).statusCode()).isEqualTo(400);
    }

    @Test
    void deleteWithoutACallerIsUnauthorized() throws Exception {
        HttpResponse<String> response = send(HttpRequest.newBuilder(server.baseUri().resolve("/todos/1"))
                .header("X-Api-Key", freshKey()).DELETE().build());

        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(response.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
    }

    @Test
    void deleteByACallerRemovesTheTodo() throws Exception {
        HttpResponse<String> created = send(post("{\"title\": \"to delete " + UUID.randomUUID() + "\"}"));
        URI location = URI.create(created.headers().firstValue("Location").orElseThrow());
        String caller = "Bearer " + UUID.randomUUID();

        HttpResponse<String> deleted = send(HttpRequest.newBuilder(location).header("Authorization", caller).DELETE().build());
        HttpResponse<String> again = send(HttpRequest.newBuilder(location).header("Authorization", caller).DELETE().build());

        assertThat(deleted.statusCode()).isEqualTo(204);
        assertThat(again.statusCode()).isEqualTo(404);
    }

    private static HttpRequest get(String path) {
        return HttpRequest.newBuilder(server.baseUri().resolve(path)).header("X-Api-Key", freshKey()).build();
    }

    private static HttpRequest post(String json) {
        return HttpRequest.newBuilder(server.baseUri().resolve("/todos"))
                .header("X-Api-Key", freshKey())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build();
    }

    private static HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static String freshKey() {
        return "smoke-" + UUID.randomUUID();
    }
}
