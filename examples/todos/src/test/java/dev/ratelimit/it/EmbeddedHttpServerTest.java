package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratelimit.core.testing.LogRecords;
import dev.ratelimit.examples.todos.TodosServer;
import dev.ratelimit.it.RawHttpConnection.Response;
import java.io.IOException;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The embedded server (Grizzly) as a real client meets it: one kept-alive connection, the status line
 * and header names as they are on the wire, a client that goes away early, and the {@code /openapi}
 * handler beside Jersey.
 */
class EmbeddedHttpServerTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Rounds of the three requests: untimed first (a cold JVM is slow at first; it grows the list), then timed. */
    private static final int WARM_UP_ROUNDS = 15;
    private static final int ROUNDS = 15;
    /** A delayed-ACK stall costs ~40 ms a request; an answer on loopback takes ~1-5 ms here, more when busy. */
    private static final double MEDIAN_LIMIT_MILLIS = 10;
    /** For each kind of request alone: far below a stall, with room for a machine shared with other builds. */
    private static final double MEDIAN_OF_EACH_LIMIT_MILLIS = 25;

    private static TodosServer server;

    @BeforeAll
    static void start() {
        server = TodosServer.start(0);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    /**
     * Requests in turn on one connection: {@code GET /todos/1}, {@code POST /todos}, and {@code GET /todos}
     * with the list larger than Jersey's 8 KiB buffer (so that it is written in several pieces). With
     * Nagle's algorithm on, the server holds back the last piece of such a response until the client ACKs
     * the one before, and the client delays that ACK by ~40 ms: {@code GET /todos} then takes ~44-48 ms here
     * (measured with {@code setTcpNoDelay(false)} on the listener), against ~3-5 ms with TCP_NODELAY. Grizzly
     * writes a small response in one piece, so the other two are not slowed by Nagle (the JDK server wrote
     * every response in two and was slowed on each); the median of all requests alone would not see the
     * stall, so the median of each kind is checked too. Each request has a key of its own: no limit refuses.
     */
    @Test
    void oneKeptAliveConnectionServesSequentialRequestsWithoutADelayedAckStall() throws Exception {
        try (RawHttpConnection connection = new RawHttpConnection(server.baseUri())) {
            Socket socket = connection.socket();
            int localPort = socket.getLocalPort();
            for (int i = 0; i < WARM_UP_ROUNDS; i++) {
                Response created = connection.post("/todos", "{\"title\": \"" + "long ".repeat(120) + UUID.randomUUID() + "\"}",
                        "X-Api-Key: " + freshKey());
                assertThat(created.status()).as("%s", created).isEqualTo(201);
                send(connection, "GET /todos/1");
                send(connection, "GET /todos");
            }
            assertThat(connection.get("/todos", "X-Api-Key: " + freshKey()).header("Transfer-Encoding"))
                    .as("GET /todos is written in pieces").hasValue("chunked");

            Map<String, List<Double>> millis = new TreeMap<>();
            for (int i = 0; i < ROUNDS; i++) {
                for (String kind : List.of("GET /todos/1", "POST /todos", "GET /todos")) {
                    long start = System.nanoTime();
                    Response response = send(connection, kind);
                    millis.computeIfAbsent(kind, k -> new ArrayList<>()).add((System.nanoTime() - start) / 1e6);
                    assertThat(response.statusLine()).startsWith("HTTP/1.1 ");
                    assertThat(response.header("Connection")).as("%s: %s", kind, response).isEmpty();
                }
            }

            // Every answer came on this one socket: a connection the server had closed would have ended
            // in an EOFException, and the socket is still the one opened at first.
            assertThat(socket.isClosed()).isFalse();
            assertThat(socket.getLocalPort()).isEqualTo(localPort);
            assertThat(connection.get("/todos/1", "X-Api-Key: " + freshKey()).status()).isEqualTo(200);

            List<Double> all = millis.values().stream().flatMap(List::stream).toList();
            assertThat(median(all)).as("median round trip in ms of all %d requests: %s", all.size(), millis)
                    .isLessThan(MEDIAN_LIMIT_MILLIS);
            millis.forEach((kind, times) -> assertThat(median(times))
                    .as("median round trip in ms of %s: %s", kind, times).isLessThan(MEDIAN_OF_EACH_LIMIT_MILLIS));
        }
    }

    private static Response send(RawHttpConnection connection, String kind) throws IOException {
        String key = "X-Api-Key: " + freshKey();
        Response response = switch (kind) {
            case "GET /todos/1" -> connection.get("/todos/1", key);
            case "GET /todos" -> connection.get("/todos", key);
            default -> connection.post("/todos", "{\"title\": \"kept alive " + UUID.randomUUID() + "\"}", key);
        };
        assertThat(response.status()).as("%s: %s", kind, response).isEqualTo(kind.startsWith("POST") ? 201 : 200);
        return response;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    @Test
    void aRefusalsStatusLineCarriesTheReasonPhrase() throws Exception {
        String key = "X-Api-Key: " + freshKey();
        try (RawHttpConnection connection = new RawHttpConnection(server.baseUri())) {
            for (int i = 0; i < 3; i++) {
                assertThat(connection.get("/todos", key).statusLine()).isEqualTo("HTTP/1.1 200 OK");
            }
            Response refused = connection.get("/todos", key);

            assertThat(refused.statusLine()).isEqualTo("HTTP/1.1 429 Too Many Requests");
            // Grizzly writes header names as the application set them (the JDK server rewrote them)
            assertThat(refused.headers()).extracting(h -> h[0])
                    .contains("RateLimit-Policy", "RateLimit", "Retry-After");
        }
    }

    @Test
    void everyResponseHasADateHeader() throws Exception {
        try (RawHttpConnection connection = new RawHttpConnection(server.baseUri())) {
            for (String path : List.of("/todos/1", "/todos/not-a-number", "/openapi", "/openapi/nothing")) {
                Response response = connection.get(path, "X-Api-Key: " + freshKey());
                assertThat(response.header("Date")).as("%s: %s", path, response).hasValueSatisfying(date -> assertThat(date)
                        .matches("[A-Z][a-z]{2}, \\d{2} [A-Z][a-z]{2} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT"));
            }
        }
    }

    @Test
    void openApiIsYamlByDefaultAndDescribesTheApplicationButNotItself() throws Exception {
        try (RawHttpConnection connection = new RawHttpConnection(server.baseUri())) {
            Response yaml = connection.get("/openapi");

            assertThat(yaml.statusLine()).isEqualTo("HTTP/1.1 200 OK");
            assertThat(yaml.header("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("application/yaml"));
            assertThat(yaml.body()).startsWith("---").contains("openapi: 3.1.0").contains("/todos/{id}:");
            assertThat(yaml.headers()).as("no rate limit covers /openapi").noneMatch(h -> h[0].startsWith("RateLimit"));

            JsonNode json = JSON.readTree(connection.get("/openapi", "Accept: application/json").body());
            assertThat(json.path("paths").has("/todos")).isTrue();
            assertThat(json.path("paths").has("/openapi")).isFalse();
        }
    }

    @Test
    void openApiFormatParameterWinsOverAccept() throws Exception {
        try (RawHttpConnection connection = new RawHttpConnection(server.baseUri())) {
            Response json = connection.get("/openapi?format=json");
            assertThat(json.header("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
            assertThat(json.body()).startsWith("{");

            Response yaml = connection.get("/openapi?format=yaml", "Accept: application/json");
            assertThat(yaml.header("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("application/yaml"));

            Response trailingSlash = connection.get("/openapi/", "Accept: application/json");
            assertThat(trailingSlash.status()).isEqualTo(200);
            assertThat(trailingSlash.body()).isEqualTo(json.body());
        }
    }

    @Test
    void openApiAnswersHeadWithTheLengthOfGetAndRefusesOtherMethodsAndPaths() throws Exception {
        try (RawHttpConnection connection = new RawHttpConnection(server.baseUri())) {
            int length = connection.get("/openapi").body().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;

            Response head = connection.exchange("HEAD", "/openapi", null);
            assertThat(head.status()).isEqualTo(200);
            assertThat(head.header("Content-Length")).hasValue(Integer.toString(length));

            Response post = connection.post("/openapi", "{}");
            assertThat(post.statusLine()).isEqualTo("HTTP/1.1 405 Method Not Allowed");
            assertThat(post.header("Allow")).hasValue("GET, HEAD");

            assertThat(connection.get("/openapi/other").statusLine()).isEqualTo("HTTP/1.1 404 Not Found");
            assertThat(connection.get("/openapi.json").status()).as("Jersey's, not the handler's").isEqualTo(404);
            // the connection survives each of these
            assertThat(connection.get("/todos/1", "X-Api-Key: " + freshKey()).status()).isEqualTo(200);
        }
    }

    /**
     * Clients that reset their connection with responses still to be written (a load generator stopping):
     * Jersey (a body larger than its 8 KiB buffer, {@code GET /todos} here) and the {@code /openapi} handler
     * then fail to write. That is a FINE line each, never a stack trace at WARNING or SEVERE.
     */
    @Test
    void clientsThatGoAwayEarlyLeaveNoStackTraces() throws Exception {
        String disconnects = "dev.ratelimit.examples.todos.disconnects";
        try (LogRecords quiet = LogRecords.on(disconnects).level(Level.FINE, disconnects);
             LogRecords loud = LogRecords.on("")) {
            try (RawHttpConnection connection = new RawHttpConnection(server.baseUri())) {
                for (int i = 0; i < 30; i++) { // GET /todos becomes ~30 KiB: written in chunks, past Jersey's buffer
                    connection.post("/todos", "{\"title\": \"" + "long ".repeat(200) + UUID.randomUUID() + "\"}",
                            "X-Api-Key: " + freshKey());
                }
            }
            for (int round = 0; round < 20 && quiet.records().isEmpty(); round++) {
                List<Socket> sockets = new ArrayList<>();
                for (int c = 0; c < 8; c++) {
                    Socket socket = new Socket(server.baseUri().getHost(), server.port());
                    socket.setSoLinger(true, 0); // close() resets the connection
                    StringBuilder pipelined = new StringBuilder();
                    for (int r = 0; r < 20; r++) {
                        pipelined.append("GET ").append(r % 2 == 0 ? "/todos" : "/openapi").append(" HTTP/1.1\r\n")
                                .append("Host: x\r\nX-Api-Key: ").append(freshKey()).append("\r\n\r\n");
                    }
                    socket.getOutputStream().write(pipelined.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    sockets.add(socket);
                }
                Thread.sleep(20);
                for (Socket socket : sockets) {
                    socket.close();
                }
                Thread.sleep(300);
            }

            assertThat(quiet.records()).as("some response could not be written: the test did what it means to")
                    .isNotEmpty();
            assertThat(loud.records()).as("records at WARNING or above with a stack trace")
                    .noneMatch(r -> r.getLevel().intValue() >= Level.WARNING.intValue() && r.getThrown() != null);
        }
        // and the server still serves
        try (RawHttpConnection connection = new RawHttpConnection(server.baseUri())) {
            assertThat(connection.get("/todos/1", "X-Api-Key: " + freshKey()).status()).isEqualTo(200);
        }
    }

    private static String freshKey() {
        return "grizzly-" + UUID.randomUUID();
    }
}
