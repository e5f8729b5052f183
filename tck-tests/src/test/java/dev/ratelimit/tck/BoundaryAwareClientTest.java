package dev.ratelimit.tck;

import dev.ratelimit.tck.support.Caller;
import dev.ratelimit.tck.support.RateLimitHeaders;
import dev.ratelimit.tck.support.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The algorithms (docs/algorithms.md) on every runtime, for the example's {@code burst} limit (5 per 1 s): a client
 * that knows where the window's steps begin (one request at the start of the first step, four just before it ends, then
 * retrying every few milliseconds) never finds more admitted requests within one second than the limit's algorithm
 * promises: 2N-1 = 9 for the sliding window (the example's) and the token bucket, N = 5 for the strict window.
 * A pair counts as within one second only if the server certainly saw it so (the later answer arrived less
 * than a second after the earlier request was sent), so network delays never fail a correct server.
 *
 * <p>The densest second holds 2N-1 for a sliding window and a token bucket alike; what only a token bucket does is
 * checked apart: after a burst of 5, one permit returns every 0.2 s, so a request 0.25 s after the burst began is
 * allowed, where both windows still refuse it.
 *
 * <p>{@value #ALGORITHM_PROPERTY} names the algorithm the server under test gives {@code burst} (default
 * {@code SLIDING_WINDOW}, as shipped): the runtimes' builds run this class again against a server started with
 * {@code ratelimit.limits.burst.algorithm} set to each of the other two.
 */
class BoundaryAwareClientTest extends TckTestBase {

    static final String ALGORITHM_PROPERTY = RateLimitHeaders.BURST_ALGORITHM_PROPERTY;
    private static final long SECOND = 1_000_000_000L;
    /** permitLimit of {@code burst}. */
    private static final int BURST_LIMIT = 5;
    /** A token bucket of 5 per 1 s gives one permit back every 0.2 s. */
    private static final long REFILL = SECOND / BURST_LIMIT;
    /** How long after the burst's first answer the next request is sent. */
    private static final long QUARTER_SECOND = SECOND / 4;
    /**
     * Attempts at the burst-and-a-quarter sequence, each with a fresh caller. An attempt whose round trips were too
     * slow to pin the server's instants (see {@link #aQuarterSecondAfterABurstOnlyATokenBucketHasAPermitAgain()})
     * proves nothing either way and is run again; every answer that can be judged is asserted at once.
     */
    private static final int ATTEMPTS = 3;

    private static String algorithm() {
        return System.getProperty(ALGORITHM_PROPERTY, "SLIDING_WINDOW");
    }

    @Test
    void noSecondHoldsMoreAdmittedRequestsThanTheAlgorithmPromises() {
        String algorithm = algorithm();
        int promise = switch (algorithm) {
            case "SLIDING_WINDOW", "TOKEN_BUCKET" -> 2 * BURST_LIMIT - 1;
            case "STRICT_WINDOW" -> BURST_LIMIT;
            default -> throw new IllegalArgumentException(ALGORITHM_PROPERTY + ": unknown algorithm " + algorithm);
        };
        Caller caller = server.withFreshKey();
        List<Reply> replies = new ArrayList<>();
        replies.add(caller.createTodo(uniqueTitle()));
        long anchor = replies.get(0).sentNanos();
        LockSupport.parkNanos(anchor + SECOND / 8 - 20_000_000L - System.nanoTime());
        for (int i = 0; i < 4; i++) {
            replies.add(caller.createTodo(uniqueTitle()));
        }
        while (System.nanoTime() - anchor < 2_600_000_000L) {
            replies.add(caller.createTodo(uniqueTitle()));
            LockSupport.parkNanos(5_000_000L);
        }

        List<Reply> admitted = replies.stream().filter(r -> r.status() == 201).toList();
        assertThat(replies).as("201 or 429 only").allMatch(r -> r.status() == 201 || r.status() == 429);
        int densest = 0;
        for (int i = 0; i < admitted.size(); i++) {
            int within = 0;
            for (int j = i; j < admitted.size(); j++) {
                if (admitted.get(j).receivedNanos() - admitted.get(i).sentNanos() < SECOND) {
                    within++;
                }
            }
            densest = Math.max(densest, within);
        }
        assertThat(densest).as("%s: admitted requests certainly within one second, of %d admitted", algorithm,
                admitted.size()).isLessThanOrEqualTo(promise);
        assertThat(admitted.size()).as("%s keeps admitting at its rate over 2.6 s", algorithm).isGreaterThanOrEqualTo(2 * BURST_LIMIT);
    }

    /**
     * Five POSTs at once (a fresh caller: all five allowed), then a sixth sent 0.25 s after the first answer
     * arrived, then a seventh at once. The server counted the first at some instant T1 in [first.sent,
     * first.received] and the sixth at T6 in [sixth.sent, sixth.received], so T6 - T1 >= 0.25 s by construction:
     * <ul>
     *   <li>a token bucket (GCRA, one permit every 0.2 s) has one permit again from T1 + 0.2 s: the sixth is
     *       allowed, and takes the only permit there is until T1 + 0.4 s, so {@code r=0}, and the seventh is refused
     *       when the server certainly saw it before T1 + 0.4 s;</li>
     *   <li>a sliding window gives its first permit back one window (1 s) after the start of its step, a strict
     *       window later still: the sixth is refused when the server certainly saw it before T1 + 1 s.</li>
     * </ul>
     * An attempt in which the round trips were too slow to place the sixth certainly before T1 + 1 s cannot tell the
     * algorithms apart and is run again; the seventh is judged whenever it can be placed before T1 + 0.4 s.
     */
    @Test
    void aQuarterSecondAfterABurstOnlyATokenBucketHasAPermitAgain() {
        boolean tokenBucket = algorithm().equals("TOKEN_BUCKET");
        List<String> unjudged = new ArrayList<>();
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            Caller caller = server.withFreshKey();
            Reply first = caller.createTodo(uniqueTitle()).assertStatus(201);
            for (int i = 2; i <= BURST_LIMIT; i++) {
                caller.createTodo(uniqueTitle()).assertStatus(201);
            }
            sleepUntil(first.receivedNanos() + QUARTER_SECOND);
            Reply sixth = caller.createTodo(uniqueTitle());
            Reply seventh = caller.createTodo(uniqueTitle());
            assertThat(sixth.sentNanos() - first.receivedNanos()).as("test timing: the server saw the sixth request "
                    + "at least 0.25 s after the first").isGreaterThanOrEqualTo(QUARTER_SECOND);
            long sixthAtMost = sixth.receivedNanos() - first.sentNanos();
            long seventhAtMost = seventh.receivedNanos() - first.sentNanos();

            if (tokenBucket) {
                sixth.assertStatus(201);
                if (sixthAtMost < 2 * REFILL) {
                    assertThat(sixth.remaining(BURST)).as("one permit came back, and the sixth took it: %s", sixth).isZero();
                }
                if (seventhAtMost < 2 * REFILL) {
                    seventh.assertRefusedBy(BURST);
                }
                if (sixthAtMost < SECOND) {
                    return; // a window would have refused the sixth; the seventh was judged where it could be
                }
            } else if (sixthAtMost < SECOND) {
                sixth.assertRefusedBy(BURST);
                return;
            }
            unjudged.add(String.format("attempt %d: the sixth answered %d ms and the seventh %d ms after the first was sent",
                    attempt, sixthAtMost / 1_000_000, seventhAtMost / 1_000_000));
        }
        fail("test timing (%s): in %d attempts the round trips were never short enough to tell a token bucket from a "
                + "window: %s", algorithm(), ATTEMPTS, unjudged);
    }
}
