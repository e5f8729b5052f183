package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.testing.ManualClock;
import dev.ratelimit.redis.internal.RedisKeys;
import dev.ratelimit.redis.testing.RedisServerExtension;
import dev.ratelimit.redis.testing.Resp;
import dev.ratelimit.redis.testing.StoredCount;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Lossless expiry: a count's key lives exactly until the count holds nothing (the return of its newest
 * permit, or of its last reserved one; a bucket's {@code tat}), and no longer. Probed with {@code PTTL} at moments where the answer
 * differs, so that a fixed TTL (a window, a window and a step) fails: on a manual clock with no padding,
 * where every instant is exact, and on the server's clock, as in production.
 */
class RedisExpiryTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    /** Real milliseconds that may pass between the script and the PTTL that probes it, on a loaded machine. */
    private static final long SLACK_MILLIS = 100;
    private static final long SECOND = 1_000_000_000L;

    private final ManualClock clock = new ManualClock();
    private final long t0 = clock.now();
    private RedisRateLimitStore manual;
    private RedisRateLimitStore server;
    private Resp resp;

    @BeforeEach
    void stores() {
        manual = RedisRateLimitStore.builder(REDIS.uri()).timeout(Duration.ofSeconds(5)).keyPrefix("manual:")
                .nanoClock(clock).expiryPaddingMillis(0).build();
        server = RedisRateLimitStore.builder(REDIS.uri()).timeout(Duration.ofSeconds(5)).keyPrefix("server:").build();
        resp = REDIS.client();
    }

    @AfterEach
    void close() {
        manual.close();
        server.close();
        resp.close();
    }

    @Test
    void aSlidingWindowCountExpiresWhenItsNewestPermitReturns() throws Exception {
        RateLimitRequest request = request(manual, new RateLimitPolicy("sliding", 5, 8)); // steps of 1 s
        String key = "manual:" + RedisKeys.tag("p") + "sliding";

        RateLimitDecision inStep0 = acquire(manual, request); // anchors at t0
        assertTtl(key, 8_000); // returns at t0 + 8 s
        clock.set(t0 + 3_300_000_000L);
        RateLimitDecision inStep3 = acquire(manual, request);
        assertTtl(key, 7_700); // step 3's permit returns at t0 + 11 s
        clock.set(t0 + 3_900_000_000L);
        acquire(manual, request); // step 3 again: still t0 + 11 s, 7.1 s away
        assertTtl(key, 7_100);
        clock.set(t0 + 5_000_000_000L);
        manual.release(inStep3).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertTtl(key, 6_000); // one permit of step 3 is left
        acquire(manual, request); // step 5
        assertTtl(key, 8_000); // t0 + 13 s
        clock.set(t0 + 10_000_000_000L); // step 0 has returned
        manual.release(inStep0).toCompletableFuture().get(5, TimeUnit.SECONDS); // so this changes nothing
        assertTtl(key, 8_000); // PTTL counts real time, which the manual clock leaves standing
    }

    @Test
    void aStrictWindowCountExpiresOneStepLater() throws Exception {
        RateLimitRequest request = request(manual, new RateLimitPolicy("strict", 5, 8, RateLimitAlgorithm.STRICT_WINDOW));
        String key = "manual:" + RedisKeys.tag("p") + "strict";
        clock.set(t0 + 1_000);

        acquire(manual, request);
        assertTtl(key, 9_000);
        clock.set(t0 + 1_000 + 2_500_000_000L); // step 2: returns at anchor + 11 s
        acquire(manual, request);
        assertTtl(key, 8_500);
    }

    @Test
    void aBucketExpiresWhenItIsFullAgainAndAGiveBackThatFillsItDeletesIt() throws Exception {
        RateLimitPolicy policy = new RateLimitPolicy("bucket", 4, 2, RateLimitAlgorithm.TOKEN_BUCKET); // 500 ms apart
        RateLimitRequest one = request(manual, policy);
        String key = "manual:" + RedisKeys.tag("p") + "bucket";

        RateLimitDecision first = acquire(manual, one);
        assertTtl(key, 500);
        RateLimitDecision three = manual.acquire("p", one, 3).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertTtl(key, 2_000);
        clock.set(t0 + 1_200_000_000L);
        acquire(manual, one); // tat = t0 + 2.5 s
        assertTtl(key, 1_300);
        manual.release(three).toCompletableFuture().get(5, TimeUnit.SECONDS); // tat = t0 + 1 s ... never before now
        assertThat(resp.number("EXISTS", key)).as("full again: holds nothing").isZero();
        manual.release(first).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(resp.number("EXISTS", key)).isZero();
    }

    @Test
    void aChargeIntoDebtKeepsTheCountUntilTheDebtHasReturned() throws Exception {
        RateLimitPolicy tokens = new RateLimitPolicy("tokens", 10, 1, RateLimitAlgorithm.TOKEN_BUCKET); // 100 ms apart
        CountKey key = new CountKey("tokens", null, RateLimitAlgorithm.TOKEN_BUCKET);
        RateLimitRequest charge = RateLimitRequest.of(manual.bind(key), key, tokens, 1, Kind.CHARGE);

        manual.acquire("p", charge, 55).toCompletableFuture().get(5, TimeUnit.SECONDS);

        assertTtl("manual:" + RedisKeys.tag("p") + "tokens", 5_500);
    }

    @Test
    void aWindowWithReservationsExpiresWhenItsLastReservedPermitReturns() throws Exception {
        RateLimitPolicy partner = new RateLimitPolicy("partner", 1, 8, RateLimitAlgorithm.STRICT_WINDOW); // steps of 1 s
        RateLimitRequest waiting = waiting(manual, partner, 60 * SECOND);
        String key = "manual:" + RedisKeys.tag("p") + "partner";

        acquire(manual, waiting); // step 0: returns one window after its end, at t0 + 9 s
        assertTtl(key, 9_000);
        RateLimitDecision second = acquire(manual, waiting);
        assertThat(second.waitNanos()).as("reserved in step 9").isEqualTo(9 * SECOND);
        assertTtl(key, 18_000);
        RateLimitDecision third = acquire(manual, waiting);
        assertThat(third.waitNanos()).as("reserved in step 18").isEqualTo(18 * SECOND);
        assertTtl(key, 27_000); // far beyond the ring of nine steps: the reservations are kept all the same
        assertThat(StoredCount.read(resp, key).reservations()).isDeepEqualTo(new long[][] {{9, 1}, {18, 1}});

        manual.release(third).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertTtl(key, 18_000); // the last reserved permit is step 9's again
        clock.set(t0 + 9_500_000_000L); // step 0 has returned; step 9's reservation is the count's only permit
        manual.release(second).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(resp.number("EXISTS", key)).as("every permit back: holds nothing").isZero();
    }

    @Test
    void aBucketThatQueuesCallersExpiresWhenItIsFullAgainAfterTheLast() throws Exception {
        RateLimitPolicy partner = new RateLimitPolicy("queue", 1, 2, RateLimitAlgorithm.TOKEN_BUCKET); // 2 s apart
        RateLimitRequest waiting = waiting(manual, partner, 10 * SECOND);
        String key = "manual:" + RedisKeys.tag("p") + "queue";

        acquire(manual, waiting);
        assertTtl(key, 2_000);
        assertThat(acquire(manual, waiting).waitNanos()).isEqualTo(2 * SECOND);
        assertTtl(key, 4_000);
        RateLimitDecision last = acquire(manual, waiting);
        assertThat(last.waitNanos()).isEqualTo(4 * SECOND);
        assertTtl(key, 6_000);
        manual.release(last).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertTtl(key, 4_000);
    }

    @Test
    void onTheServersClockTheKeyLivesUntilTheNewestPermitReturns() throws Exception {
        RateLimitRequest request = RateLimitRequest.builder()
                .add(server.bind(countKey("window", RateLimitAlgorithm.SLIDING_WINDOW)),
                        countKey("window", RateLimitAlgorithm.SLIDING_WINDOW), new RateLimitPolicy("window", 5, 2), 1, Kind.ACQUIRE)
                .add(server.bind(countKey("bucket", RateLimitAlgorithm.TOKEN_BUCKET)),
                        countKey("bucket", RateLimitAlgorithm.TOKEN_BUCKET),
                        new RateLimitPolicy("bucket", 4, 3, RateLimitAlgorithm.TOKEN_BUCKET), 2, Kind.ACQUIRE)
                .build();
        String windowKey = "server:" + RedisKeys.tag("p") + "window";
        String bucketKey = "server:" + RedisKeys.tag("p") + "bucket";

        for (int round = 0; round < 2; round++) {
            server.acquire("p", request, 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
            long now = serverMicros();
            StoredCount window = StoredCount.read(resp, windowKey);
            assertThat(window.newest() > 0).as("round %d: a later step than the anchor's", round).isEqualTo(round > 0);
            long idle = window.anchorOrTat() + (window.newest() + 8) * window.stepOrEpoch();
            assertThat(window.idleAt()).isEqualTo(idle);
            assertThat(resp.number("PTTL", windowKey)).as("round %d: window", round)
                    .isBetween(ms(idle - now) - SLACK_MILLIS, ms(idle - now) + 1);
            long tat = StoredCount.read(resp, bucketKey).anchorOrTat();
            assertThat(resp.number("PTTL", bucketKey)).as("round %d: bucket", round)
                    .isBetween(ms(tat - now) - SLACK_MILLIS, ms(tat - now) + 1);
            Thread.sleep(300); // the next round lands in another step of the window (250 ms), the bucket refilled a little
        }
    }

    private static CountKey countKey(String name, RateLimitAlgorithm algorithm) {
        return new CountKey(name, null, algorithm);
    }

    /** PTTL is within the slack below the expected milliseconds, never above. */
    private void assertTtl(String key, long expectedMillis) {
        assertThat(resp.number("PTTL", key)).as("PTTL of %s at t0 + %d ms", key, (clock.now() - t0) / 1_000_000)
                .isBetween(expectedMillis - SLACK_MILLIS, expectedMillis);
    }

    private static long ms(long micros) {
        return (micros + 999) / 1_000;
    }

    private long serverMicros() {
        @SuppressWarnings("unchecked")
        List<String> time = (List<String>) resp.call("TIME");
        return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
    }

    private static RateLimitRequest request(RedisRateLimitStore store, RateLimitPolicy policy) {
        CountKey key = new CountKey(policy.name(), null, policy.algorithm());
        return RateLimitRequest.of(store.bind(key), key, policy, 1, Kind.ACQUIRE);
    }

    private static RateLimitRequest waiting(RedisRateLimitStore store, RateLimitPolicy policy, long maxWaitNanos) {
        CountKey key = new CountKey(policy.name(), null, policy.algorithm());
        return RateLimitRequest.builder().add(store.bind(key), key, policy, 1, Kind.ACQUIRE, maxWaitNanos).build();
    }

    private static RateLimitDecision acquire(RedisRateLimitStore store, RateLimitRequest request) throws Exception {
        RateLimitDecision decision = store.acquire("p", request, 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(decision.allowed()).isTrue();
        return decision;
    }
}
