package dev.ratelimit.examples.todos.quarkus;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The partition header on Quarkus REST, where the library reads it from the server request rather than through
 * Jakarta REST's header map (which Quarkus REST would build for the request from every header): the same value
 * {@code ContainerRequestContext.getHeaderString} gives, so the same partition as on the other runtimes.
 */
@QuarkusTest
class PartitionHeaderOnQuarkusTest {

    /**
     * HTTP/1.1: the JDK's client would otherwise offer an upgrade to HTTP/2, over which Vert.x hands a repeated
     * header over differently (another partition than over HTTP/1.1, whichever way the header is read).
     */
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @TestHTTPResource("/todos")
    URI todos;

    @Test
    void aRepeatedKeyIsItsValuesJoinedWithCommasAndItsNameMatchesWithoutRegardToCase() throws Exception {
        String a = "repeat-" + UUID.randomUUID();
        String b = "other-" + UUID.randomUUID();
        HttpResponse<String> repeated = send(HttpRequest.newBuilder(todos).header("X-Api-Key", a).header("X-Api-Key", b));
        assertThat(remainingOfDefault(repeated)).as("first request of the partition: %s", repeated.headers()).isEqualTo(2);
        HttpResponse<String> joined = send(HttpRequest.newBuilder(todos).header("x-api-key", a + "," + b));
        assertThat(remainingOfDefault(joined)).as("the same partition, sent as one line: %s", joined.headers()).isEqualTo(1);
        HttpResponse<String> first = send(HttpRequest.newBuilder(todos).header("X-API-KEY", a));
        assertThat(remainingOfDefault(first)).as("the first value alone is another partition: %s", first.headers())
                .isEqualTo(2);
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return CLIENT.send(request.GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** {@code r} of the {@code "default"} item of the {@code RateLimit} header; -1 when absent. */
    private static int remainingOfDefault(HttpResponse<String> response) {
        List<String> items = List.of(response.headers().firstValue("RateLimit").orElse("").split(", "));
        for (String item : items) {
            if (item.startsWith("\"default\";r=")) {
                return Integer.parseInt(item.substring("\"default\";r=".length(), item.indexOf(";t=")));
            }
        }
        return -1;
    }
}
