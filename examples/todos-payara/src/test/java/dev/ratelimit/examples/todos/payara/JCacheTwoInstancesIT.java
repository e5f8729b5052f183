package dev.ratelimit.examples.todos.payara;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.tck.launcher.ServerProcess;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The example on two Payara Micro instances that form one cluster on the loopback interface (Payara's own Hazelcast,
 * no jar added), with {@code ratelimit.jcache.cache} set: the two count in one shared count. 200 concurrent requests
 * spread over both, under the module limit of 100, admit exactly 100, each with a decision of its own. Refusals are
 * answered at home: after the first refusal, a flood of one caller over both instances costs the store about one call
 * per instance (read from each instance's {@code ratelimit_store_duration_seconds_count}); an operator's reset through
 * one instance lets the caller that the other remembers as refused in at once (each remembers a refusal for up to a
 * minute here, so that only the announcement can end it within the test's wait).
 *
 * <p>Each instance binds the first free HTTP port from a random base ({@code --autobindhttp}) and reports it in its
 * output, which is read back; its Hazelcast member does the same from a random start port, and the second joins the
 * first by TCP-IP on that range. A cluster name of its own keeps any other Payara on the machine out.
 */
class JCacheTwoInstancesIT {

    private static final Pattern URL = Pattern.compile("Payara Micro URLs:\\s+http://[^:/\\s]+:(\\d+)/");
    /** Payara's data grid status: {@code ... This: true UUID: <uuid> Address: /127.0.0.1:<port>}. */
    private static final Pattern MEMBER = Pattern.compile("This: true UUID: [0-9a-f-]+ Address: /127\\.0\\.0\\.1:(\\d+)");
    private static final Duration START = Duration.ofSeconds(300);
    private static final List<ServerProcess> SERVERS = new ArrayList<>();
    private static final List<URI> BASES = new ArrayList<>();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    @BeforeAll
    static void startTwoInstances() throws Exception {
        String cluster = "ratelimit-jcache-" + UUID.randomUUID();
        int clusterPort = 41_000 + ThreadLocalRandom.current().nextInt(5_000) * 4;
        int httpPort = 21_000 + ThreadLocalRandom.current().nextInt(5_000) * 4;
        Path target = Path.of(System.getProperty("payara.target", "target"));
        int firstMember = clusterPort;
        for (int i = 0; i < 2; i++) { // one after the other: the second joins a member whose application is deployed
            Path log = target.resolve("jcache-payara-" + i + ".log");
            ServerProcess server = ServerProcess.start("Payara Micro (jcache " + i + ")", List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Dratelimit.jcache.cache=ratelimit",
                    // exactness is checked here, not latency: the first of 200 concurrent calls on one hot key of a
                    // cold JVM on a busy CI machine may take longer than the default 250 ms (then a 500, by the policy)
                    "-Dratelimit.store.timeout-millis=10000",
                    // a refusal is remembered until its retry-after (about a minute): only an announcement ends it sooner
                    "-Dratelimit.store.refusal-memory-millis=60000",
                    "-jar", target.resolve("payara-micro.jar").toString(),
                    "--deploy", target.resolve("todos.war").toString(), "--contextroot", "/",
                    "--port", Integer.toString(httpPort), "--autobindhttp",
                    "--clustername", cluster, "--startport", Integer.toString(clusterPort),
                    "--clustermode", "tcpip:127.0.0.1:" + firstMember,
                    "--interfaces", "127.0.0.1", "--nohostaware",
                    "--rootdir", target.resolve("payara-jcache-" + i + "-" + clusterPort).toString()),
                    Map.of(), Path.of(System.getProperty("user.dir")), log);
            SERVERS.add(server);
            URI base = URI.create("http://127.0.0.1:" + reported(server, log, URL) + "/");
            server.awaitReady(base.resolve("todos/1"), START, false);
            BASES.add(base);
            if (i == 0) {
                firstMember = reported(server, log, MEMBER); // its member's port: taken, it would have moved on
            }
        }
        for (int i = 0; i < 2; i++) {
            String log = Files.readString(target.resolve("jcache-payara-" + i + ".log"), StandardCharsets.UTF_8);
            assertThat(log).as("start-up line of instance %d", i).contains("ratelimit: store JCacheRateLimitStore(cache=ratelimit,")
                    .contains("announcements=ratelimit.announcements");
        }
    }

    @AfterAll
    static void stop() {
        SERVERS.forEach(ServerProcess::close);
    }

    @Test
    void twoHundredConcurrentRequestsOverBothInstancesAdmitExactlyTheLimitOfOneHundred() {
        String key = "jcache-" + UUID.randomUUID();
        List<CompletableFuture<HttpResponse<Void>>> inFlight = IntStream.range(0, 200)
                .mapToObj(i -> HTTP.sendAsync(HttpRequest.newBuilder(BASES.get(i % 2).resolve("todos/2147480000"))
                        .header("X-Api-Key", key).timeout(Duration.ofSeconds(60)).build(),
                        HttpResponse.BodyHandlers.discarding()))
                .toList();
        List<HttpResponse<Void>> replies = inFlight.stream().map(CompletableFuture::join).toList();
        List<HttpResponse<Void>> admitted = replies.stream().filter(r -> r.statusCode() == 404).toList();
        assertThat(replies).allSatisfy(r -> assertThat(r.statusCode()).isIn(404, 429));
        assertThat(admitted).as("admitted of 200 concurrent requests over two instances").hasSize(100);
        assertThat(admitted.stream().map(r -> Long.parseLong(r.headers().firstValue("RateLimit-Remaining").orElse("-1")))
                .toList()).as("each admitted request saw a decision of its own")
                .containsExactlyInAnyOrderElementsOf(IntStream.range(0, 100).mapToObj(Long::valueOf).toList());
    }

    @Test
    void aFloodAfterTheFirstRefusalCostsTheStoreAboutOneCallPerInstance() throws Exception {
        URI a = BASES.get(0);
        URI b = BASES.get(1);
        String key = "flood-" + UUID.randomUUID();
        spendTheDefaultLimit(a, b, key);
        long beforeA = storeCalls(a);
        long beforeB = storeCalls(b);

        for (int i = 0; i < 100; i++) {
            assertThat(send(i % 2 == 0 ? b : a, "GET", "todos", "X-Api-Key", key).statusCode()).isEqualTo(429);
        }

        assertThat(storeCalls(a) - beforeA).as("store calls of instance 0 for 50 refused requests").isBetween(1L, 2L);
        assertThat(storeCalls(b) - beforeB).as("store calls of instance 1 for 50 refused requests").isBetween(1L, 2L);
    }

    @Test
    void aResetThroughOneInstanceLetsTheCallerRememberedOnTheOtherInAtOnce() throws Exception {
        URI a = BASES.get(0);
        URI b = BASES.get(1);
        String key = "reset-" + UUID.randomUUID();
        spendTheDefaultLimit(a, b, key);
        assertThat(send(b, "GET", "todos", "X-Api-Key", key).statusCode()).isEqualTo(429);
        assertThat(send(a, "GET", "todos", "X-Api-Key", key).statusCode()).isEqualTo(429);
        long before = storeCalls(b);
        assertThat(send(b, "GET", "todos", "X-Api-Key", key).statusCode()).isEqualTo(429);
        assertThat(storeCalls(b)).as("the refusal answered by instance 1 itself").isEqualTo(before);
        String count = "ratelimit/limits/default/partitions/X-Api-Key:" + key;
        assertThat(send(b, "GET", count, "Authorization", "Bearer ops:admin").body()).contains("\"remaining\":0");

        assertThat(send(a, "DELETE", count, "Authorization", "Bearer ops:admin").statusCode()).isEqualTo(204);

        assertThat(send(b, "GET", count, "Authorization", "Bearer ops:admin").body()).contains("\"remaining\":3");
        HttpResponse<String> in = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            in = send(b, "GET", "todos", "X-Api-Key", key);
            if (in.statusCode() != 429) {
                break;
            }
            Thread.sleep(100); // the announcement is on its way; without it the refusal holds for a minute
        }
        assertThat(in.statusCode()).as("let in on the other instance after the reset").isEqualTo(200);
        assertThat(in.headers().firstValue("RateLimit-Remaining")).hasValue("2");
    }

    /** Spends the three permits of the default limit of {@code key}, one instance after the other. */
    private static void spendTheDefaultLimit(URI a, URI b, String key) throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(send(i % 2 == 0 ? a : b, "GET", "todos", "X-Api-Key", key).statusCode()).isEqualTo(200);
        }
    }

    /** How many calls the instance at {@code base} has made to its store, as its metrics count them. */
    private static long storeCalls(URI base) throws Exception {
        HttpResponse<String> metrics = send(base, "GET", "metrics", "Accept", "text/plain");
        assertThat(metrics.statusCode()).isEqualTo(200);
        double calls = 0;
        boolean found = false;
        for (String line : metrics.body().split("\n")) {
            if (line.startsWith("ratelimit_store_duration_seconds_count{") && line.contains("ratelimit_store=\"jcache\"")) {
                calls += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                found = true;
            }
        }
        assertThat(found).as("ratelimit_store_duration_seconds_count of the jcache store at %s", base).isTrue();
        return (long) calls;
    }

    private static HttpResponse<String> send(URI base, String method, String path, String header, String value)
            throws Exception {
        return HTTP.send(HttpRequest.newBuilder(base.resolve(path)).header(header, value)
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A port the instance bound, as it reports it in its output ({@code line}'s group 1). */
    private static int reported(ServerProcess server, Path log, Pattern line) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + START.toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.exists(log)) {
                Matcher m = line.matcher(Files.readString(log, StandardCharsets.UTF_8));
                if (m.find()) {
                    return Integer.parseInt(m.group(1));
                }
            }
            if (ProcessHandle.of(server.pid()).map(p -> !p.isAlive()).orElse(true)) {
                throw new IllegalStateException("the instance exited before it reported " + line + "; see " + log);
            }
            Thread.sleep(250); // polling a log file for a line: there is nothing to wait on
        }
        throw new IllegalStateException("no " + line + " in " + log + " within " + START.toSeconds() + " s");
    }
}
