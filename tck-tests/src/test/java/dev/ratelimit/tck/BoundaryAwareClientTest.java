package dev.ratelimit.tck;

import dev.ratelimit.tck.support.Caller;
import dev.ratelimit.tck.support.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SPEC 15 on every runtime, for the example's {@code burst} limit (5 per 1 s, the default sliding window): a
 * client that knows where the window's steps begin (one request at the start of the first step, four just
 * before it ends, then retrying at once) never finds more than 2N-1 = 9 admitted requests within one second.
 * A pair counts as within one second only if the server certainly saw it so (the later answer arrived less
 * than a second after the earlier request was sent), so network delays never fail a correct server.
 * (The other algorithms, under the same attack: examples/todos, {@code BoundaryAwareClientTest}.)
 */
class BoundaryAwareClientTest extends TckTestBase {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void noSecondHoldsMoreThanTwiceTheBurstLimitLessOne() {
        Caller caller = server.withFreshKey();
        List<Reply> replies = new ArrayList<>();
        replies.add(caller.createTodo(uniqueTitle()));
        long anchor = replies.get(0).sentNanos();
        LockSupport.parkNanos(anchor + SECOND / 8 - 20_000_000L - System.nanoTime());
        for (int i = 0; i < 4; i++) {
            replies.add(caller.createTodo(uniqueTitle()));
        }
        while (System.nanoTime() - anchor < 2_200_000_000L) {
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
        assertThat(densest).as("admitted requests certainly within one second, of %d admitted", admitted.size())
                .isLessThanOrEqualTo(9);
        assertThat(admitted.size()).as("the limit keeps admitting: 5 a second").isGreaterThanOrEqualTo(10);
    }
}
