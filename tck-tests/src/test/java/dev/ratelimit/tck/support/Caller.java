package dev.ratelimit.tck.support;

import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/** Sends requests as one partition: the same headers ({@code X-Api-Key}, {@code Authorization}) on each. */
public final class Caller {

    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final ServerUnderTest server;
    /** Header lines by name, each value sent as a line of its own, in order. */
    private final Map<String, List<String>> headers;

    Caller(ServerUnderTest server) {
        this(server, Map.of());
    }

    private Caller(ServerUnderTest server, Map<String, List<String>> headers) {
        this.server = server;
        this.headers = headers;
    }

    /** The same caller, sending one more header (the name is sent exactly as given). */
    public Caller withHeader(String name, String value) {
        return withHeaderLines(name, value);
    }

    /** The same caller, sending header {@code name} once per value, as lines of their own, in this order. */
    public Caller withHeaderLines(String name, String... values) {
        Map<String, List<String>> more = new LinkedHashMap<>(headers);
        more.put(name, List.of(values));
        return new Caller(server, Map.copyOf(more));
    }

    public Reply get(String path) {
        return send("GET", path, HttpRequest.BodyPublishers.noBody(), null);
    }

    public Reply head(String path) {
        return send("HEAD", path, HttpRequest.BodyPublishers.noBody(), null);
    }

    public Reply put(String path) {
        return send("PUT", path, HttpRequest.BodyPublishers.ofString("{}"), "application/json");
    }

    public Reply delete(String path) {
        return send("DELETE", path, HttpRequest.BodyPublishers.noBody(), null);
    }

    /** {@code POST /todos} with {@code {"title": title}}. */
    public Reply createTodo(String title) {
        try {
            return postJson("/todos", JSON.writeValueAsString(Map.of("title", title)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Reply postJson(String path, String json) {
        return send("POST", path, HttpRequest.BodyPublishers.ofString(json), "application/json");
    }

    /**
     * {@code POST} of an HTML form ({@code application/x-www-form-urlencoded}, its charset said: UTF-8, which some
     * runtimes do not assume): each field, name and value encoded, in order; a null value leaves its field out.
     */
    public Reply postForm(String path, String... namesAndValues) {
        StringJoiner form = new StringJoiner("&");
        for (int i = 0; i + 1 < namesAndValues.length; i += 2) {
            if (namesAndValues[i + 1] != null) {
                form.add(URLEncoder.encode(namesAndValues[i], StandardCharsets.UTF_8) + "="
                        + URLEncoder.encode(namesAndValues[i + 1], StandardCharsets.UTF_8));
            }
        }
        return send("POST", path, HttpRequest.BodyPublishers.ofString(form.toString()),
                "application/x-www-form-urlencoded; charset=UTF-8");
    }

    /** {@code POST} without a body. */
    public Reply post(String path) {
        return send("POST", path, HttpRequest.BodyPublishers.noBody(), null);
    }

    /** {@code count} GETs of {@code path} at once, each from its own thread, released together. */
    public List<Reply> getConcurrently(String path, int count) {
        return atOnce(Collections.nCopies(count, () -> get(path)));
    }

    /**
     * Sends {@code requests} at once, each from a thread of its own, released together; the replies in the order of
     * the requests.
     */
    public static List<Reply> atOnce(List<Supplier<Reply>> requests) {
        ExecutorService threads = Executors.newFixedThreadPool(requests.size());
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Reply>> pending = new ArrayList<>();
            for (Supplier<Reply> request : requests) {
                pending.add(threads.submit(() -> {
                    start.await();
                    return request.get();
                }));
            }
            start.countDown();
            List<Reply> replies = new ArrayList<>();
            for (Future<Reply> reply : pending) {
                replies.add(reply.get());
            }
            return replies;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(e.getCause());
        } finally {
            threads.shutdownNow();
        }
    }

    public Reply send(String method, String path, HttpRequest.BodyPublisher body, String contentType) {
        HttpRequest.Builder request = HttpRequest.newBuilder(server.resolve(path)).timeout(TIMEOUT).method(method, body);
        headers.forEach((name, values) -> values.forEach(value -> request.header(name, value)));
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        String description = method + " " + path + (headers.isEmpty() ? "" : " " + headers);
        long sent = System.nanoTime();
        HttpResponse<String> response;
        try {
            response = CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(description + " failed against " + server, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(description + " interrupted", e);
        }
        return new Reply(description, response.statusCode(), response.headers(), response.body(), sent, System.nanoTime());
    }

    @Override
    public String toString() {
        return headers.isEmpty() ? "anonymous caller" : "caller " + headers;
    }
}
