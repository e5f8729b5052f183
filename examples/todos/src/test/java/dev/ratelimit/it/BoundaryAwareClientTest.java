package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.examples.todos.TodosServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The algorithms (docs/algorithms.md) over HTTP, on the example's {@code burst} limit (5 per 1 s on
 * {@code POST /todos}), once per algorithm ({@code ratelimit.limits.burst.algorithm}): a client that knows where the
 * window's steps begin puts one request at the start of the first step, four just before its end, and then retries at
 * once, again and again. The densest span of one second of admitted requests must stay within the algorithm's
 * promise: 2N-1 = 9 (sliding window, token bucket), N = 5 (strict window).
 *
 * <p>Over HTTP the server's instants are known only within each request's round trip; a pair of admitted
 * requests counts as "within one second" only if it certainly was ({@code received(j) - sent(i) < 1 s}), so a
 * correct server never fails the test however slow the network; the loose estimate
 * ({@code sent(j) - received(i) < 1 s}) is what the attacker may have achieved. Both are printed: the README's
 * table of measured densest spans comes from this test.
 *
 * <p>The densest second is 2N-1 for the sliding window and the token bucket alike; what only a token bucket does
 * (a permit back every 0.2 s after a burst) is checked apart, by the same rule of certain instants.
 */
class BoundaryAwareClientTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long STEP = SECOND / 8;

    private static final int BURST = 5;
    /** A token bucket of 5 per 1 s gives one permit back every 0.2 s. */
    private static final long REFILL = SECOND / BURST;
    private static final long QUARTER_SECOND = SECOND / 4;
    /** Attempts at the burst-and-a-quarter sequence; only one whose round trips were too slow to judge is run again. */
    private static final int ATTEMPTS = 3;

    /** One POST: when it was sent and answered, its status, and its {@code RateLimit} field. */
    private record Attempt(long sent, long received, int status, String rateLimit) {
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(RateLimitAlgorithm.class)
    void theDensestSecondOfAdmittedRequestsKeepsTheAlgorithmsPromise(RateLimitAlgorithm algorithm) throws Exception {
        TodosServer server = start(algorithm);
        try {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            String key = "attacker-" + UUID.randomUUID();
            List<Attempt> attempts = new ArrayList<>();
            attempts.add(post(client, server.baseUri(), key));
            long anchor = attempts.get(0).sent();
            waitUntil(anchor + STEP - 20_000_000L); // just before the first step ends
            for (int i = 0; i < 4; i++) {
                attempts.add(post(client, server.baseUri(), key));
            }
            while (System.nanoTime() - anchor < 2_600_000_000L) {
                attempts.add(post(client, server.baseUri(), key));
                LockSupport.parkNanos(2_000_000L);
            }

            List<Attempt> admitted = attempts.stream().filter(a -> a.status() == 201).toList();
            int certain = densest(admitted, true);
            int possible = densest(admitted, false);
            System.out.printf("%s: %d attempts, %d admitted; densest 1 s span: %d certain, %d at most%n",
                    algorithm, attempts.size(), admitted.size(), certain, possible);

            assertThat(attempts).as("every answer is 201 or 429").allMatch(a -> a.status() == 201 || a.status() == 429);
            int promise = algorithm == RateLimitAlgorithm.STRICT_WINDOW ? 5 : 9;
            assertThat(certain).as("%s: admitted requests certainly within one second", algorithm)
                    .isLessThanOrEqualTo(promise);
            assertThat(admitted.size()).as("%s keeps admitting at its rate over 2.6 s", algorithm)
                    .isGreaterThanOrEqualTo(algorithm == RateLimitAlgorithm.STRICT_WINDOW ? 10 : 13);
        } finally {
            stop(server);
        }
    }

    /**
     * After a burst of 5 (a fresh key), a POST sent 0.25 s after the first answer arrived, and another at once. The
     * server counted the first at T1 within the first round trip, so it saw the sixth at least 0.25 s later: a token
     * bucket has a permit again from T1 + 0.2 s, and the sixth takes it ({@code r=0}; the seventh is refused while
     * the server certainly saw it before T1 + 0.4 s); both windows give their first permit back no sooner than
     * T1 + 1 s, and refuse the sixth while the server certainly saw it before then. An attempt whose round trips
     * were too slow to place those requests before those instants is run again; every answer that can be judged is
     * asserted at once.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(RateLimitAlgorithm.class)
    void aQuarterSecondAfterABurstOnlyATokenBucketHasAPermitAgain(RateLimitAlgorithm algorithm) throws Exception {
        boolean tokenBucket = algorithm == RateLimitAlgorithm.TOKEN_BUCKET;
        TodosServer server = start(algorithm);
        try {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            List<String> unjudged = new ArrayList<>();
            for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
                String key = "burst-" + UUID.randomUUID();
                Attempt first = post(client, server.baseUri(), key);
                List<Attempt> burst = new ArrayList<>(List.of(first));
                for (int i = 2; i <= BURST; i++) {
                    burst.add(post(client, server.baseUri(), key));
                }
                assertThat(burst).as("a fresh key's burst of 5: all allowed").allMatch(a -> a.status() == 201);
                waitUntil(first.received() + QUARTER_SECOND);
                Attempt sixth = post(client, server.baseUri(), key);
                Attempt seventh = post(client, server.baseUri(), key);
                long sixthAtMost = sixth.received() - first.sent();
                long seventhAtMost = seventh.received() - first.sent();

                if (tokenBucket) {
                    assertThat(sixth.status()).as("a token bucket has a permit again 0.25 s after the burst: %s", sixth)
                            .isEqualTo(201);
                    if (sixthAtMost < 2 * REFILL) {
                        assertThat(sixth.rateLimit()).as("the sixth took the one permit back").contains("\"burst\";r=0;");
                    }
                    if (seventhAtMost < 2 * REFILL) {
                        assertThat(seventh.status()).as("one permit every 0.2 s, not more: %s", seventh).isEqualTo(429);
                    }
                    if (sixthAtMost < SECOND) {
                        return; // a window would have refused the sixth; the seventh was judged where it could be
                    }
                } else if (sixthAtMost < SECOND) {
                    assertThat(sixth.status()).as("%s: no permit of the burst is back within 1 s: %s", algorithm, sixth)
                            .isEqualTo(429);
                    assertThat(sixth.rateLimit()).contains("\"burst\";r=0;");
                    return;
                }
                unjudged.add(String.format("attempt %d: the sixth answered %d ms and the seventh %d ms after the first was sent",
                        attempt, sixthAtMost / 1_000_000, seventhAtMost / 1_000_000));
            }
            fail("test timing (%s): in %d attempts the round trips were never short enough to tell a token bucket from "
                    + "a window: %s", algorithm, ATTEMPTS, unjudged);
        } finally {
            stop(server);
        }
    }

    /**
     * The example with {@code burst} on {@code algorithm}, and room in {@code hourly} for the hundreds of POSTs sent;
     * {@link #stop} closes it and forgets both.
     */
    private static TodosServer start(RateLimitAlgorithm algorithm) {
        System.setProperty("ratelimit.limits.burst.algorithm", algorithm.name());
        System.setProperty("ratelimit.limits.hourly.permit-limit", "100000");
        return TodosServer.start(0);
    }

    private static void stop(TodosServer server) {
        try {
            server.close();
        } finally {
            System.clearProperty("ratelimit.limits.burst.algorithm");
            System.clearProperty("ratelimit.limits.hourly.permit-limit");
        }
    }

    /**
     * The most admitted requests within one second: {@code certain} counts a pair only if the server certainly
     * saw both within a second (the later's answer came less than a second after the earlier was sent).
     */
    private static int densest(List<Attempt> admitted, boolean certain) {
        int most = 0;
        for (int i = 0; i < admitted.size(); i++) {
            int count = 0;
            for (int j = i; j < admitted.size(); j++) {
                long gap = certain ? admitted.get(j).received() - admitted.get(i).sent()
                        : admitted.get(j).sent() - admitted.get(i).received();
                if (gap < SECOND) {
                    count++;
                }
            }
            most = Math.max(most, count);
        }
        return most;
    }

    private static Attempt post(HttpClient client, URI base, String key) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(base.resolve("/todos"))
                .timeout(Duration.ofSeconds(10))
                .header("X-Api-Key", key)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"title\":\"" + UUID.randomUUID() + "\"}"))
                .build();
        long sent = System.nanoTime();
        HttpResponse<Void> response = client.send(request, HttpResponse.BodyHandlers.discarding());
        long received = System.nanoTime();
        return new Attempt(sent, received, response.statusCode(), String.join(", ", response.headers().allValues("RateLimit")));
    }

    private static void waitUntil(long nanoTime) {
        long wait;
        while ((wait = nanoTime - System.nanoTime()) > 0) {
            LockSupport.parkNanos(wait);
        }
    }
}
