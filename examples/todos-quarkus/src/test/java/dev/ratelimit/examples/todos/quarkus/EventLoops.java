package dev.ratelimit.examples.todos.quarkus;

import io.netty.util.concurrent.EventExecutor;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** What the tests about the event loop share (with Redis or without): probing the loops, and a keyed request. */
final class EventLoops {

    private EventLoops() {
    }

    /**
     * Submits a task to every event loop of Quarkus' Vert.x at once, and returns how long each waited to run, by
     * thread name. An event loop that something blocks runs it only once it is free again.
     */
    static Map<String, Long> lagMillis(Vertx vertx) throws Exception {
        return lagMillis(vertx, 5_000);
    }

    private static Map<String, Long> lagMillis(Vertx vertx, long timeoutMillis) throws Exception {
        long submitted = System.nanoTime();
        List<Future<String>> probes = new ArrayList<>();
        for (EventExecutor loop : vertx.nettyEventLoopGroup()) {
            probes.add(loop.submit(() -> Thread.currentThread().getName() + "="
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - submitted)));
        }
        Map<String, Long> lag = new TreeMap<>();
        for (Future<String> probe : probes) {
            String[] ran = probe.get(timeoutMillis, TimeUnit.MILLISECONDS).split("=");
            lag.put(ran[0], Long.parseLong(ran[1]));
        }
        return lag;
    }

    /**
     * {@link #lagMillis}, failing with what it means when an event loop does not run the task within
     * {@code timeoutMillis}: while the test holds what a request waits for, a loop that the request held would run it
     * only once the request gives up (the store's timeout), so a timeout well under the store's tells a held loop from
     * a busy one.
     */
    static Map<String, Long> lagMillisOrHeld(Vertx vertx, long timeoutMillis, String waitingFor) throws Exception {
        try {
            return lagMillis(vertx, timeoutMillis);
        } catch (TimeoutException e) {
            throw new AssertionError("an event loop of Quarkus' Vert.x ran no task within " + timeoutMillis + " ms while "
                    + waitingFor + ": a request holds it", e);
        }
    }

    /** A GET of {@code uri} with the partition header {@code X-Api-Key: key}. */
    static HttpRequest request(URI uri, String key) {
        return HttpRequest.newBuilder(uri).header("X-Api-Key", key).GET().build();
    }

    /** {@link #request}, sent. */
    static HttpResponse<String> get(URI uri, String key) throws Exception {
        return HttpClient.newHttpClient().send(request(uri, key), HttpResponse.BodyHandlers.ofString());
    }
}
