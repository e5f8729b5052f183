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

/** What the tests about the event loop share (with Redis or without): probing the loops, and a keyed request. */
final class EventLoops {

    private EventLoops() {
    }

    /**
     * Submits a task to every event loop of Quarkus' Vert.x at once, and returns how long each waited to run, by
     * thread name. An event loop that something blocks runs it only once it is free again.
     */
    static Map<String, Long> lagMillis(Vertx vertx) throws Exception {
        long submitted = System.nanoTime();
        List<Future<String>> probes = new ArrayList<>();
        for (EventExecutor loop : vertx.nettyEventLoopGroup()) {
            probes.add(loop.submit(() -> Thread.currentThread().getName() + "="
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - submitted)));
        }
        Map<String, Long> lag = new TreeMap<>();
        for (Future<String> probe : probes) {
            String[] ran = probe.get(5, TimeUnit.SECONDS).split("=");
            lag.put(ran[0], Long.parseLong(ran[1]));
        }
        return lag;
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
