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
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A rolling deploy: instances of the version before limits that wait run the script they shipped with
 * ({@code counts-before-waiting.lua}, kept as it was) beside this version's, on the same counts. A count
 * without reservations is stored exactly as before, so each version reads what the other wrote; a window
 * holding reservations is longer, and the old script counts it afresh, which is why a limit should get its wait
 * once every instance runs this version.
 */
class RollingDeployTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final String OLD_SCRIPT = oldScript();

    private final ManualClock clock = new ManualClock();
    private final String prefix = "rolling-" + UUID.randomUUID() + ":";
    private RedisRateLimitStore store;
    private Resp resp;

    @BeforeEach
    void connect() {
        store = RedisRateLimitStore.builder(REDIS.uri()).timeout(Duration.ofSeconds(5)).keyPrefix(prefix)
                .nanoClock(clock).build();
        resp = REDIS.client();
    }

    @AfterEach
    void close() {
        store.close();
        resp.close();
    }

    @Test
    void bothVersionsSpendFromOneWindowWhileNothingIsReserved() throws Exception {
        RateLimitPolicy shared = new RateLimitPolicy("shared", 4, 60);
        RateLimitRequest request = request(shared, 0);
        String key = prefix + RedisKeys.tag("p") + "shared";

        assertThat(acquire(request).outcome(0).remaining()).isEqualTo(3);
        assertThat(StoredCount.read(resp, key).fields()).as("stored as before: no reservation")
                .hasSize(4 + 8);
        clock.advanceSeconds(10); // another step
        assertThat(oldAcquire(key, "sa", 4, 7_500_000, 1)).as("the old script's state and permits left")
                .startsWith(0L, 2L);
        assertThat(acquire(request).outcome(0).remaining()).as("the new one reads the old one's permit").isEqualTo(1);
        assertThat(oldAcquire(key, "sa", 4, 7_500_000, 1)).startsWith(0L, 0L);
        assertThat(acquire(request).allowed()).isFalse();
    }

    @Test
    void bothVersionsSpendFromOneBucket() throws Exception {
        RateLimitPolicy bucket = new RateLimitPolicy("bucket", 3, 3, RateLimitAlgorithm.TOKEN_BUCKET); // 1 s apart
        String key = prefix + RedisKeys.tag("p") + "bucket";

        assertThat(acquire(request(bucket, 0)).outcome(0).remaining()).isEqualTo(2);
        assertThat(oldAcquire(key, "ba", 3, 1_000_000, 1)).startsWith(0L, 1L);
        RateLimitDecision waited = acquire(request(bucket, 5_000_000_000L));
        assertThat(waited.outcome(0).remaining()).isZero();
        assertThat(waited.waitNanos()).isZero();
        assertThat(oldAcquire(key, "ba", 3, 1_000_000, 1)).as("refused, for a second").startsWith(2L, 0L);
        assertThat(acquire(request(bucket, 5_000_000_000L)).waitNanos()).as("a reservation: the tat moves on")
                .isEqualTo(1_000_000_000L);
        assertThat(oldAcquire(key, "ba", 3, 1_000_000, 1)).as("which the old script reads as it always did")
                .startsWith(2L, 0L);
        assertThat(((Long) oldAcquire(key, "ba", 3, 1_000_000, 1).get(3))).as("its retry-after, in microseconds")
                .isEqualTo(2_000_000L);
    }

    @Test
    void anOldInstanceCountsAWindowHoldingReservationsAfresh() throws Exception {
        RateLimitPolicy partner = new RateLimitPolicy("partner", 1, 1, RateLimitAlgorithm.STRICT_WINDOW);
        RateLimitRequest waiting = request(partner, 5_000_000_000L);
        String key = prefix + RedisKeys.tag("p") + "partner";
        acquire(waiting);
        assertThat(acquire(waiting).waitNanos()).isEqualTo(1_125_000_000L);

        // the documented limit of a rolling deploy: the old script does not know the longer value, and starts anew
        assertThat(oldAcquire(key, "ta", 1, 125_000, 1)).as("an old instance lets a caller through").startsWith(0L, 0L);
        assertThat(StoredCount.read(resp, key).reservations()).as("and the reservation is forgotten").isEmpty();
    }

    private RateLimitRequest request(RateLimitPolicy policy, long maxWaitNanos) {
        CountKey key = new CountKey(policy.name(), null, policy.algorithm());
        return RateLimitRequest.builder().add(store.bind(key), key, policy, 1, Kind.ACQUIRE, maxWaitNanos).build();
    }

    private RateLimitDecision acquire(RateLimitRequest request) throws Exception {
        return store.acquire("p", request, 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    /** The old script's acquire of one limit on the store's clock: state, permits left, reset, retry-after, receipt. */
    @SuppressWarnings("unchecked")
    private List<Object> oldAcquire(String key, String code, int limit, long size, long permits) {
        String now = Long.toString((clock.now() - ManualClock.DEFAULT_START) / 1_000); // the store's origin
        return (List<Object>) resp.call("EVAL", OLD_SCRIPT, "1", key, "a", now, "3600000", code,
                Integer.toString(limit), Long.toString(size), Long.toString(permits));
    }

    private static String oldScript() {
        try (InputStream in = RollingDeployTest.class.getResourceAsStream("counts-before-waiting.lua")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
