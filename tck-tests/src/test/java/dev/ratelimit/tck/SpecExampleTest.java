package dev.ratelimit.tck;

import dev.ratelimit.tck.support.Caller;
import dev.ratelimit.tck.support.DefaultLimitTraffic;
import dev.ratelimit.tck.support.RateLimitHeaders;
import dev.ratelimit.tck.support.Reply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The worked example of docs/responses.md, "Headers", to the value:
 * {@code @RateLimit(permitLimit = 3, windowSeconds = 60)} on {@code GET /todos}, the fourth request 18 s after the
 * first.
 *
 * <p>This is the suite's one long wait, so the class runs concurrently with the rest of the suite (which
 * otherwise runs one class at a time).
 */
@Execution(ExecutionMode.CONCURRENT)
class SpecExampleTest extends TckTestBase {

    private static final Duration EIGHTEEN_SECONDS = Duration.ofSeconds(18);
    private static final Duration NINETEEN_SECONDS = Duration.ofSeconds(19);
    /** Sent this long after the first reply arrived, so the server surely sees 18 s or more have passed. */
    private static final Duration MARGIN = Duration.ofMillis(50);

    /**
     * Attempts at the sequence, each with a fresh caller: an attempt whose round trips were too slow to pin the
     * server-side interval (a pause of the server or of this JVM, which shares the machine with the rest of the
     * suite) proves nothing either way and is run again; every attempt that can be judged is asserted in full.
     */
    private static final int ATTEMPTS = 3;

    @Test
    void fourthRequestEighteenSecondsAfterTheFirstIsToldToRetryInFortyTwoSeconds() {
        long slowest = 0;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            long elapsed = attempt();
            if (elapsed < 0) {
                return;
            }
            slowest = Math.max(slowest, elapsed);
        }
        assertThat(slowest).as("test timing: in %d attempts the round trips were never fast enough to pin the "
                + "server-side interval below 19 s", ATTEMPTS).isLessThan(NINETEEN_SECONDS.toNanos());
    }

    /** One attempt: -1 when it was judged (and passed), else the interval that was too wide to judge. */
    private long attempt() {
        // Warm the path up on another partition, so the first request's round trip (which bounds the
        // uncertainty about when the server counted it) is short.
        getTodos(server.withFreshKey()).assertStatus(200);

        Caller caller = server.withFreshKey();
        Reply first = getTodos(caller).assertStatus(200);
        assertThat(first.limit()).isEqualTo(3);
        assertThat(first.remaining()).isEqualTo(2);
        assertThat(first.reset()).isEqualTo(60);
        assertThat(first.policy(DEFAULT)).satisfies(p -> {
            assertThat(p.quota()).isEqualTo(3);
            assertThat(p.windowSeconds()).isEqualTo(60);
        });
        assertThat(first.item(DEFAULT)).satisfies(i -> {
            assertThat(i.remaining()).isEqualTo(2);
            assertThat(i.resetSeconds()).isEqualTo(60);
        });
        if (global().isEmpty()) {
            // The whole fields, exactly as the documented example prints them (compared in canonical RFC 8941 form).
            assertThat(first.canonical(RateLimitHeaders.POLICY)).isEqualTo("\"default\";q=3;w=60");
            assertThat(first.canonical(RateLimitHeaders.RATE_LIMIT)).isEqualTo("\"default\";r=2;t=60");
        }
        assertThat(first.retryAfterIfSent()).as("an allowed response has no Retry-After").isEmpty();

        Reply second = getTodos(caller).assertStatus(200);
        assertThat(second.remaining()).isEqualTo(1);
        assertThat(second.reset()).as("the oldest permit (the first request's) returns 60 s after it").isEqualTo(60);
        Reply third = getTodos(caller).assertStatus(200);
        assertThat(third.remaining()).isZero();
        assertThat(third.reset()).isEqualTo(60);

        // The server counted the first request at some instant T0 between first.sent and first.received,
        // and will count the fourth at T4 between fourth.sent and fourth.received. Its first permit returns at
        // T0 + 60 s, and the server rounds the wait up: Retry-After = ceil(60 - (T4 - T0)), which is 42
        // exactly when 18 s <= T4 - T0 < 19 s. Sending at first.received + 18 s (+ margin) makes T4 - T0 >= 18 s;
        // the round trips (milliseconds) keep it well below 19 s, which is checked below.
        sleepUntil(first.receivedNanos() + EIGHTEEN_SECONDS.toNanos() + MARGIN.toNanos());
        Reply fourth = getTodos(caller);

        long leastElapsed = fourth.sentNanos() - first.receivedNanos();
        long mostElapsed = fourth.receivedNanos() - first.sentNanos();
        assertThat(leastElapsed).as("test timing: the server saw at least 18 s between first and fourth")
                .isGreaterThanOrEqualTo(EIGHTEEN_SECONDS.toNanos());
        if (mostElapsed >= NINETEEN_SECONDS.toNanos()) {
            return mostElapsed; // round trips too slow to pin the server-side interval below 19 s: not judged
        }

        fourth.assertRefusedBy(DEFAULT);
        assertThat(fourth.retryAfter()).as("Retry-After of %s", fourth).isEqualTo(42);
        assertThat(fourth.remaining()).isZero();
        assertThat(fourth.reset()).isEqualTo(42);
        assertThat(fourth.limit()).isEqualTo(3);
        assertThat(fourth.item(DEFAULT)).satisfies(i -> {
            assertThat(i.remaining()).isZero();
            assertThat(i.resetSeconds()).isEqualTo(42);
        });
        if (global().isEmpty()) {
            assertThat(fourth.canonical(RateLimitHeaders.POLICY)).isEqualTo("\"default\";q=3;w=60");
            assertThat(fourth.canonical(RateLimitHeaders.RATE_LIMIT)).isEqualTo("\"default\";r=0;t=42");
        }
        return -1;
    }

    /**
     * {@code GET /todos} in no plan: the metric counters of {@code default} that MetricsTest reads exactly count it,
     * so it is never sent in the middle of one of MetricsTest's sequences.
     */
    private static Reply getTodos(Caller caller) {
        return DefaultLimitTraffic.send(() -> caller.get(TODOS));
    }
}
