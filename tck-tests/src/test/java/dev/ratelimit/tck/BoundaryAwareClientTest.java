package dev.ratelimit.tck;

import dev.ratelimit.tck.support.Caller;
import dev.ratelimit.tck.support.RateLimitHeaders;
import dev.ratelimit.tck.support.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SPEC 15 on every runtime, for the example's {@code burst} limit (5 per 1 s): a client that knows where the
 * window's steps begin (one request at the start of the first step, four just before it ends, then retrying
 * every few milliseconds) never finds more admitted requests within one second than the limit's algorithm
 * promises: 2N-1 = 9 for the sliding window (the example's) and the token bucket, N = 5 for the strict window.
 * A pair counts as within one second only if the server certainly saw it so (the later answer arrived less
 * than a second after the earlier request was sent), so network delays never fail a correct server.
 *
 * <p>{@value #ALGORITHM_PROPERTY} names the algorithm the server under test gives {@code burst} (default
 * {@code SLIDING_WINDOW}, as shipped): the runtimes' builds run this class again against a server started with
 * {@code ratelimit.limits.burst.algorithm} set to each of the other two.
 */
class BoundaryAwareClientTest extends TckTestBase {

    static final String ALGORITHM_PROPERTY = RateLimitHeaders.BURST_ALGORITHM_PROPERTY;
    private static final long SECOND = 1_000_000_000L;
    private static final int BURST = 5;

    @Test
    void noSecondHoldsMoreAdmittedRequestsThanTheAlgorithmPromises() {
        String algorithm = System.getProperty(ALGORITHM_PROPERTY, "SLIDING_WINDOW");
        int promise = switch (algorithm) {
            case "SLIDING_WINDOW", "TOKEN_BUCKET" -> 2 * BURST - 1;
            case "STRICT_WINDOW" -> BURST;
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
        assertThat(admitted.size()).as("%s keeps admitting at its rate over 2.6 s", algorithm).isGreaterThanOrEqualTo(2 * BURST);
    }
}
