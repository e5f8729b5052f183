package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.redis.testing.RedisServerExtension;
import dev.ratelimit.redis.testing.Resp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Decisions that arrive while a round trip is in flight go out together: with one call on its way to a
 * Redis that is busy ({@code DEBUG SLEEP}), 49 more calls wait in the connection's buffer and are written together
 * when its answer arrives, so Redis reads them in a few reads instead of one read per call; each is still its own
 * script call, decided on its own.
 */
class PipeliningTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    @Test
    void callsMadeWhileOneIsOnItsWayAreWrittenTogetherAndEachDecidedOnItsOwn() throws Exception {
        RateLimitPolicy limit = new RateLimitPolicy("piped", 30, 60);
        CountKey key = new CountKey(limit.name(), null, RateLimitAlgorithm.SLIDING_WINDOW);
        try (RedisRateLimitStore store = RedisRateLimitStore.builder(REDIS.uri()).keyPrefix("piped:")
                .timeout(Duration.ofSeconds(10)).build()) {
            assertThat(store.awaitConnection(Duration.ofSeconds(10))).isTrue();
            RateLimitRequest request = RateLimitRequest.of(store.bind(key), key, limit, 1, Kind.ACQUIRE);
            store.acquire("warm", request, 1).toCompletableFuture().get(10, TimeUnit.SECONDS);
            CompletableFuture<Object> busy = CompletableFuture.supplyAsync(() -> {
                try (Resp resp = REDIS.client()) {
                    return resp.call("DEBUG", "SLEEP", "0.5");
                }
            });
            Thread.sleep(100); // Redis sleeps: the first call waits in its socket, the others in the client
            long readsBefore = reads();

            List<CompletableFuture<RateLimitDecision>> calls = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                calls.add(store.acquire("piped", request, 1).toCompletableFuture());
            }
            int allowed = 0;
            for (CompletableFuture<RateLimitDecision> call : calls) {
                allowed += call.get(10, TimeUnit.SECONDS).allowed() ? 1 : 0;
            }
            busy.get(10, TimeUnit.SECONDS);

            assertThat(allowed).as("each call decided on its own: 30 of 50 under a limit of 30").isEqualTo(30);
            // the reads of the DEBUG SLEEP client and of this INFO are counted too
            assertThat(reads() - readsBefore).as("reads for 50 calls").isLessThanOrEqualTo(10);
        }
    }

    private static long reads() {
        try (Resp resp = REDIS.client()) {
            for (String line : resp.string("INFO", "stats").split("\r\n")) {
                if (line.startsWith("total_reads_processed:")) {
                    return Long.parseLong(line.substring(line.indexOf(':') + 1));
                }
            }
        }
        throw new IllegalStateException("no total_reads_processed in INFO stats");
    }
}
