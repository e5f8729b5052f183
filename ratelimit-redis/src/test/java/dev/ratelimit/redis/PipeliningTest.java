package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.testing.Await;
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
 * Decisions that arrive while a round trip is in flight go out together: with one call on its way to a Redis that
 * holds it ({@code CLIENT PAUSE ... WRITE}: Redis reads the script call and keeps it unanswered, while it still answers
 * this test's reads), 49 more calls wait in the connection's buffer and are written together when its answer arrives,
 * so Redis reads them in a few reads instead of one read per call; each is still its own script call, decided on its
 * own.
 *
 * <p>Nothing here depends on timing: the pause is in place when {@code CLIENT PAUSE} answers, the first call is seen
 * held by Redis ({@code CLIENT LIST}: the store's connection blocked) before the pause is lifted, and the pause lasts
 * until the test lifts it. (A {@code DEBUG SLEEP} cannot be watched: Redis answers nothing while it sleeps, and the
 * calls that arrive meanwhile are read together by Redis whatever the client does.)
 */
class PipeliningTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    @Test
    void callsMadeWhileOneIsOnItsWayAreWrittenTogetherAndEachDecidedOnItsOwn() throws Exception {
        RateLimitPolicy limit = new RateLimitPolicy("piped", 30, 60);
        CountKey key = new CountKey(limit.name(), null, RateLimitAlgorithm.SLIDING_WINDOW);
        try (RedisRateLimitStore store = RedisRateLimitStore.builder(REDIS.uri()).keyPrefix("piped:")
                .client(RedisRateLimitStore.Client.LETTUCE) // Lettuce's one connection; Jedis: a connection per thread
                .timeout(Duration.ofSeconds(20)).build();
             Resp admin = REDIS.client()) {
            assertThat(store.awaitConnection(Duration.ofSeconds(10))).isTrue();
            RateLimitRequest request = RateLimitRequest.of(store.bind(key), key, limit, 1, Kind.ACQUIRE);
            store.acquire("warm", request, 1).toCompletableFuture().get(10, TimeUnit.SECONDS);

            List<CompletableFuture<RateLimitDecision>> calls = new ArrayList<>();
            int ownCommands; // what this test sends Redis meanwhile (each read on its own): not the store's reads
            long readsBefore;
            // in place once answered; lifted below, or by Redis itself after 15 s should the test fail first
            assertThat(admin.call("CLIENT", "PAUSE", "15000", "WRITE")).isEqualTo("OK");
            try {
                readsBefore = reads(admin);
                for (int i = 0; i < 50; i++) {
                    calls.add(store.acquire("piped", request, 1).toCompletableFuture());
                }
                int[] polls = {0};
                Await.until("the first call held by Redis (CLIENT LIST: the store's connection blocked)", 10, () -> {
                    polls[0]++;
                    return storeCallHeld(admin);
                });
                assertThat(calls).as("no call answered while Redis holds the first").noneMatch(CompletableFuture::isDone);
                ownCommands = polls[0] + 1; // the polls, and the UNPAUSE
            } finally {
                admin.call("CLIENT", "UNPAUSE");
            }
            int allowed = 0;
            for (CompletableFuture<RateLimitDecision> call : calls) {
                allowed += call.get(10, TimeUnit.SECONDS).allowed() ? 1 : 0;
            }

            assertThat(allowed).as("each call decided on its own: 30 of 50 under a limit of 30").isEqualTo(30);
            // the first call, the 49 written together, and the INFO that reads the count
            assertThat(reads(admin) - readsBefore - ownCommands).as("reads of Redis for 50 calls").isLessThanOrEqualTo(10);
        }
    }

    /** True when a connection of the store (named "ratelimit") has a call that Redis holds (the flag {@code b}). */
    private static boolean storeCallHeld(Resp admin) {
        for (String client : admin.string("CLIENT", "LIST").split("\n")) {
            String flags = field(client, "flags");
            if ("ratelimit".equals(field(client, "name")) && flags != null && flags.contains("b")) {
                return true;
            }
        }
        return false;
    }

    private static String field(String client, String name) {
        for (String pair : client.strip().split(" ")) {
            if (pair.startsWith(name + "=")) {
                return pair.substring(name.length() + 1);
            }
        }
        return null;
    }

    /** Redis' {@code total_reads_processed} (this INFO's own read included). */
    private static long reads(Resp admin) {
        for (String line : admin.string("INFO", "stats").split("\r\n")) {
            if (line.startsWith("total_reads_processed:")) {
                return Long.parseLong(line.substring(line.indexOf(':') + 1));
            }
        }
        throw new IllegalStateException("no total_reads_processed in INFO stats");
    }
}
