package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.examples.todos.Main;
import dev.ratelimit.core.testing.Await;
import dev.ratelimit.redis.testing.CommandStats;
import dev.ratelimit.redis.testing.RedisServerExtension;
import dev.ratelimit.redis.testing.Resp;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Counting across instances at the cost of one instance (docs/stores.md, "Counting across instances (Redis)"), over HTTP: two servers of the example, each a JVM
 * of its own (as {@code java ... Main}), on one real Redis, and a third that never answers a refusal itself
 * ({@code ratelimit.store.refusal-memory-millis=0}): what the store would answer. A flood from one caller costs about
 * one script call per server and gets the store's 429; an admin reset on one server, or a raised limit applied live,
 * lets the caller in on the other at once; 200 concurrent requests under a limit of 100 admit 100; with Redis frozen
 * ({@code SIGSTOP}) only the first request waits for the timeout.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RefusalsAtHomeOnTwoServersTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1).build();
    private static final long TIMEOUT_MILLIS = 250;
    private static final String READY = "todos listening on ";
    private static final long READY_SECONDS = 60;

    private static final List<Process> SERVERS = new ArrayList<>();
    private static URI a;
    private static URI b;
    private static URI store;
    private static Path limitsFile;

    @BeforeAll
    static void servers() throws Exception {
        limitsFile = Files.createTempFile("todos-limits", ".properties");
        // a refusal is remembered for a minute here, so that a test proves what ends it early, and Redis has 5 s to
        // answer, however loaded the machine; "store" keeps the defaults (250 ms: the frozen-Redis test's timeout)
        a = start("a", "-Dratelimit.store.refusal-memory-millis=60000", "-Dratelimit.store.timeout-millis=5000");
        b = start("b", "-Dratelimit.store.refusal-memory-millis=60000", "-Dratelimit.store.timeout-millis=5000",
                "-Dratelimit.limits-file=" + limitsFile, "-Dratelimit.refresh-seconds=1");
        store = start("store", "-Dratelimit.store.refusal-memory-millis=0");
    }

    @AfterAll
    static void stop() throws Exception {
        for (Process server : SERVERS) {
            server.destroy();
            if (!server.waitFor(10, TimeUnit.SECONDS)) {
                server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        Files.deleteIfExists(limitsFile);
    }

    @Test
    @Order(1)
    void aFloodOfOneCallerThroughTwoServersCostsAtMostOneScriptCallPerServerAndGetsTheStoresAnswer() throws Exception {
        String key = "flood-" + UUID.randomUUID();
        for (int i = 0; i < 3; i++) {
            assertThat(get(i % 2 == 0 ? a : b, "todos", key).statusCode()).isEqualTo(200);
        }
        assertThat(get(a, "todos", key).statusCode()).as("the first refusal").isEqualTo(429);
        CommandStats before = stats();

        HttpResponse<String> last = null;
        for (int i = 0; i < 600; i++) {
            last = get(i % 2 == 0 ? b : a, "todos", key);
            assertThat(last.statusCode()).isEqualTo(429);
        }
        long calls = scriptCalls(before);
        HttpResponse<String> fromStore = get(store, "todos", key);

        assertThat(calls).as("script calls for 600 refused requests through two servers").isLessThanOrEqualTo(2);
        assertThat(last.body()).isEqualTo(fromStore.body());
        for (String header : List.of("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Policy", "Content-Type")) {
            assertThat(last.headers().allValues(header)).as(header).isEqualTo(fromStore.headers().allValues(header));
        }
        // seconds counting down: the two answers came a moment apart, each rounded up
        long retry = number(fromStore, "Retry-After");
        assertThat(number(last, "Retry-After")).as("counting down as the store's").isBetween(retry - 1, retry + 1);
        assertThat(number(last, "RateLimit-Reset")).isBetween(retry - 1, retry + 1);
        String[] remembered = last.headers().firstValue("RateLimit").orElseThrow().split(", ");
        String[] stored = fromStore.headers().firstValue("RateLimit").orElseThrow().split(", ");
        assertThat(remembered).hasSameSizeAs(stored);
        for (int i = 0; i < stored.length; i++) {
            String storedItem = stored[i].substring(0, stored[i].indexOf(";t="));
            long storedT = Long.parseLong(stored[i].substring(stored[i].indexOf(";t=") + 3));
            assertThat(remembered[i]).startsWith(storedItem + ";t=");
            assertThat(Long.parseLong(remembered[i].substring(remembered[i].indexOf(";t=") + 3)))
                    .isBetween(storedT - 1, storedT + 1);
        }
    }

    @Test
    @Order(2)
    void anAdminResetThroughOneServerLetsTheRememberedCallerInOnTheOtherAtOnce() throws Exception {
        String key = "reset-" + UUID.randomUUID();
        for (int i = 0; i < 3; i++) {
            get(a, "todos", key);
        }
        awaitRemembered(b, "todos", key);

        HttpResponse<String> reset = send(a, "DELETE", "ratelimit/limits/default/partitions/X-Api-Key:" + key,
                "Authorization", "Bearer ops:admin");
        assertThat(reset.statusCode()).isEqualTo(204);

        long since = System.nanoTime();
        awaitUntil("let in on the other server", () -> get(b, "todos", key).statusCode() == 200);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since))
                .as("at once, not when the remembered refusal runs out (a minute)").isLessThan(5_000);
    }

    @Test
    @Order(3)
    void aRaisedLimitAppliedLiveLetsTheRememberedCallerIn() throws Exception {
        String key = "raised-" + UUID.randomUUID();
        assertThat(get(b, "todos/report", key).statusCode()).isEqualTo(200); // "reports": 10 a minute, 4 each
        assertThat(get(b, "todos/report", key).statusCode()).isEqualTo(200);
        awaitRemembered(b, "todos/report", key);

        Files.writeString(limitsFile, "ratelimit.limits.reports.permit-limit=12\n");

        long since = System.nanoTime();
        awaitUntil("let in once the file's value applies", () -> get(b, "todos/report", key).statusCode() == 200);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since)).isLessThan(15_000);
    }

    @Test
    @Order(4)
    void twoHundredConcurrentRequestsThroughTwoServersUnderALimitOfOneHundredAdmitExactlyOneHundred() throws Exception {
        String key = "concurrent-" + UUID.randomUUID();
        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        for (int i = 0; i < 200; i++) { // GET /todos/{id}: the module limit alone, 100 a minute
            answers.add(HTTP.sendAsync(request(i % 2 == 0 ? a : b, "GET", "todos/1", "X-Api-Key", key),
                    HttpResponse.BodyHandlers.ofString()));
        }
        List<Integer> statuses = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> answer : answers) {
            statuses.add(answer.get(60, TimeUnit.SECONDS).statusCode());
        }
        assertThat(statuses.stream().filter(s -> s == 200).count()).as("200s among %s", statuses).isEqualTo(100);
        assertThat(statuses.stream().filter(s -> s == 429).count()).as("429s").isEqualTo(100);
    }

    @Test
    @Order(5)
    void withRedisFrozenOnlyTheFirstRequestWaitsForTheTimeout() throws Exception {
        String key = "frozen-" + UUID.randomUUID();
        URI server = store; // the default timeout, 250 ms
        assertThat(get(server, "todos/1", key).statusCode()).isEqualTo(200);
        signal("STOP");
        List<Long> millis = new ArrayList<>();
        List<Integer> statuses = new ArrayList<>();
        try {
            for (int i = 0; i < 21; i++) {
                long started = System.nanoTime();
                statuses.add(get(server, "todos/1", key).statusCode());
                millis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            }
        } finally {
            signal("CONT");
        }
        assertThat(statuses).as("on-failure=fail: a 500 each").containsOnly(500);
        assertThat(millis.get(0)).as("the first request waits for the timeout").isGreaterThanOrEqualTo(TIMEOUT_MILLIS - 5);
        List<Long> following = new ArrayList<>(millis.subList(1, millis.size()));
        following.sort(null);
        assertThat(following.get(following.size() / 2)).as("median of the next 20, ms: %s", millis).isLessThan(25);
        long continued = System.nanoTime();
        awaitUntil("counted again", () -> get(server, "todos/1", key).statusCode() == 200);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - continued))
                .as("within the retry time (1 s) and one probe").isLessThan(1000 + TIMEOUT_MILLIS + 1500);
    }

    // ------------------------------------------------------------------------------------------------

    /**
     * Starts a server on port 0 with the example's own Redis settings, and returns where it listens: its ready line, read
     * from its log (its output and errors both go there, so that nothing it writes can fill a pipe and stop it). Fails
     * naming the log, with its end, when the line has not come within {@value #READY_SECONDS} s or the server exits.
     */
    private static URI start(String name, String... properties) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dratelimit.redis.uri=" + REDIS.uri()));
        command.addAll(List.of(properties));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        Path log = Files.createTempFile("todos-" + name, ".log");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(Map.of("PORT", "0"));
        Process server = builder.start();
        SERVERS.add(server);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(READY_SECONDS);
        while (true) {
            String ready = readyLine(log);
            if (ready != null) {
                return URI.create(ready.substring(READY.length()));
            }
            if (!server.isAlive() || System.nanoTime() - deadline > 0) {
                String text = Files.readString(log, StandardCharsets.UTF_8);
                throw new AssertionError("server " + name + (server.isAlive() ? " wrote no ready line (\"" + READY
                        + "...\") within " + READY_SECONDS + " s" : " exited with " + server.exitValue()
                        + " before its ready line") + "; its log, " + log + ", ends:\n"
                        + text.substring(Math.max(0, text.length() - 4000)));
            }
            Thread.sleep(20);
        }
    }

    /** The ready line, once the server has written it whole (a line ended by its line break); else null. */
    private static String readyLine(Path log) throws IOException {
        String[] lines = Files.readString(log, StandardCharsets.UTF_8).split("\n", -1);
        for (int i = 0; i < lines.length - 1; i++) { // the last one is not ended yet
            if (lines[i].startsWith(READY)) {
                return lines[i].strip();
            }
        }
        return null;
    }

    /** Waits until a refused request of the caller on {@code server} costs no script call: answered there. */
    private static void awaitRemembered(URI server, String path, String key) throws Exception {
        awaitUntil("the refusal answered at home", () -> {
            CommandStats before = stats();
            return get(server, path, key).statusCode() == 429 && scriptCalls(before) == 0;
        });
    }

    private static HttpResponse<String> get(URI server, String path, String key) {
        return send(server, "GET", path, "X-Api-Key", key);
    }

    private static HttpResponse<String> send(URI server, String method, String path, String header, String value) {
        try {
            return HTTP.send(request(server, method, path, header, value), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static HttpRequest request(URI server, String method, String path, String header, String value) {
        return HttpRequest.newBuilder(server.resolve(path)).header(header, value)
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30)).build();
    }

    private static long number(HttpResponse<String> response, String header) {
        return Long.parseLong(response.headers().firstValue(header).orElseThrow());
    }

    private static CommandStats stats() {
        try (Resp resp = REDIS.client()) {
            return CommandStats.of(resp);
        }
    }

    private static long scriptCalls(CommandStats before) {
        return stats().scriptCallsSince(before);
    }

    private static void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(REDIS.pid())).inheritIO().start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0).as("kill -" + name).isTrue();
    }

    private static void awaitUntil(String what, Callable<Boolean> condition) throws Exception {
        Await.until(what, 30, condition);
    }
}
