package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.RateLimitStore.CountListener;
import dev.ratelimit.core.testing.Await;
import dev.ratelimit.redis.testing.RedisServerExtension;
import dev.ratelimit.redis.testing.Resp;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the store announces, on a real Redis, through a second store that listens as another instance
 * would: a give-back or a restart of a count that refused since its last announcement is published once; counts
 * that never refused cost nothing (both counted once a later announcement, a marker, has been heard: a message
 * published before it would have come first); the listener hears that anything may have changed each time its subscription is
 * in place, after Redis comes back too.
 */
class AnnouncementsTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final RateLimitPolicy LIMIT = new RateLimitPolicy("announced", 2, 60);

    private final Recording heard = new Recording();
    private RedisRateLimitStore writer;
    private RedisRateLimitStore listener;
    private RateLimitRequest request;

    @BeforeEach
    void stores() throws Exception {
        writer = RedisRateLimitStore.builder(REDIS.uri()).keyPrefix("announce:").timeout(Duration.ofSeconds(5)).build();
        listener = RedisRateLimitStore.builder(REDIS.uri()).keyPrefix("announce:").timeout(Duration.ofSeconds(5)).build();
        assertThat(writer.announceTo(new Recording())).isTrue(); // the writer's script flags and publishes
        assertThat(listener.announceTo(heard)).isTrue();
        CountKey key = new CountKey(LIMIT.name(), "gold", RateLimitAlgorithm.SLIDING_WINDOW);
        request = RateLimitRequest.of(writer.bind(key), key, LIMIT, 1, Kind.ACQUIRE);
        awaitUntil("subscribed", () -> heard.subscriptions.get() == 1);
    }

    @AfterEach
    void close() throws Exception {
        writer.close();
        listener.close();
        REDIS.start();
    }

    @Test
    void aGiveBackToACountThatRefusedIsAnnouncedOnceWithItsNamePlanAndPartition() throws Exception {
        String partition = "X-Api-Key:{odd}:ключ";
        RateLimitDecision first = acquire(partition);
        acquire(partition);
        assertThat(acquire(partition).allowed()).isFalse();

        writer.release(first).toCompletableFuture().get(5, TimeUnit.SECONDS);
        awaitUntil("the give-back announced", () -> !heard.gained.isEmpty());
        assertThat(heard.gained.get(0)).isEqualTo("announced/gold@" + partition);

        RateLimitDecision again = acquire(partition);
        writer.release(again).toCompletableFuture().get(5, TimeUnit.SECONDS);
        writer.release(acquire(partition)).toCompletableFuture().get(5, TimeUnit.SECONDS);
        String marker = announceMarker();

        assertThat(heard.gained).as("once: nothing more, before the marker or after it (no refusal since the "
                + "announcement)").containsExactly("announced/gold@" + partition, marker);
    }

    @Test
    void aRestartOfACountThatRefusedIsAnnounced() throws Exception {
        acquire("p");
        acquire("p");
        acquire("p");

        writer.restart("p", request).toCompletableFuture().get(5, TimeUnit.SECONDS);

        awaitUntil("the restart announced", () -> heard.gained.contains("announced/gold@p"));
    }

    @Test
    void countsThatNeverRefusedAnnounceNoGiveBackAndLeaveNoFlag() throws Exception {
        RateLimitDecision spent = acquire("calm");
        writer.release(spent).toCompletableFuture().get(5, TimeUnit.SECONDS);

        try (Resp resp = REDIS.client()) {
            @SuppressWarnings("unchecked")
            List<Object> flags = (List<Object>) resp.call("KEYS", "announce:*!");
            assertThat(flags).isEmpty();
        }
        String marker = announceMarker();
        assertThat(heard.gained).as("nothing before the marker").containsExactly(marker);
    }

    /** Slices of a count must end when it starts afresh, so every restart is announced, refused or not. */
    @Test
    void aRestartOfACountThatNeverRefusedIsAnnouncedToo() throws Exception {
        acquire("calm");

        writer.restart("calm", request).toCompletableFuture().get(5, TimeUnit.SECONDS);

        awaitUntil("the restart announced", () -> heard.gained.contains("announced/gold@calm"));
    }

    @Test
    void theFlagOfARefusalExpiresWithItsRetryAfter() throws Exception {
        acquire("short");
        acquire("short");
        acquire("short");
        try (Resp resp = REDIS.client()) {
            long ttl = resp.number("PTTL", "announce:{5:short}announced/gold!");
            assertThat(ttl).isBetween(55_000L, 60_001L);
        }
    }

    @Test
    void theListenerHearsThatAnythingMayHaveChangedWhenItsSubscriptionIsBackAfterAnOutage() throws Exception {
        REDIS.stop();
        REDIS.start();

        awaitUntil("resubscribed", () -> heard.subscriptions.get() == 2);
    }

    /**
     * Makes a count of a partition of its own refuse and gives one of its permits back, then waits until that
     * announcement is heard, and returns it. Redis delivers one channel's messages to a subscriber in the order it
     * published them, and the writer's calls ran in order: so an announcement of anything done before has been heard by
     * then, if it was ever published, and a test can count what it heard without waiting on a guess.
     */
    private String announceMarker() throws Exception {
        String partition = "marker-" + UUID.randomUUID();
        RateLimitDecision first = acquire(partition);
        acquire(partition);
        assertThat(acquire(partition).allowed()).as("the marker's count refuses").isFalse();
        writer.release(first).toCompletableFuture().get(5, TimeUnit.SECONDS);
        String marker = "announced/gold@" + partition;
        awaitUntil("the marker announced", () -> heard.gained.contains(marker));
        return marker;
    }

    private RateLimitDecision acquire(String partition) throws Exception {
        return writer.acquire(partition, request, 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    private static void awaitUntil(String what, BooleanSupplier condition) throws Exception {
        Await.until(what, 15, condition::getAsBoolean);
    }

    /** What a listener heard: each count as {@code name/plan@partition}, and how often it (re)subscribed. */
    private static final class Recording implements CountListener {
        final List<String> gained = new CopyOnWriteArrayList<>();
        final AtomicInteger subscriptions = new AtomicInteger();

        @Override
        public void gained(String name, String plan, String partition) {
            gained.add(name + (plan == null ? "" : "/" + plan) + "@" + partition);
        }

        @Override
        public void anyMayHaveGained() {
            subscriptions.incrementAndGet();
        }
    }
}
