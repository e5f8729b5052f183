package dev.ratelimit.tck;

import dev.ratelimit.tck.support.Caller;
import dev.ratelimit.tck.support.Reply;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Counting under contention: requests of one partition arriving at once are admitted exactly up to the
 * permit limit, and each admitted request's decision is its own (a distinct {@code RateLimit-Remaining}).
 */
class ConcurrencyTest extends TckTestBase {

    @Test
    void concurrentRequestsOfOneKeyAdmitExactlyThePermitLimit() {
        List<Reply> replies = server.withFreshKey().getConcurrently(TODOS, 24);
        assertAdmittedExactly(replies, 200, DEFAULT, 3);
    }

    @Test
    void concurrentRequestsOfOneKeyAdmitExactlyTheModuleLimit() {
        int admitted = Math.min(100, global().orElse(Integer.MAX_VALUE));
        Caller caller = server.withFreshKey();
        List<Reply> replies = caller.getConcurrently(MISSING_TODO, admitted + 30);
        assertAdmittedExactly(replies, 404, admitted == 100 ? MODULE : GLOBAL, admitted);
    }

    private static void assertAdmittedExactly(List<Reply> replies, int allowedStatus, String limit, int permits) {
        List<Reply> allowed = replies.stream().filter(r -> r.status() == allowedStatus).toList();
        List<Reply> refused = replies.stream().filter(r -> r.status() == 429).toList();
        assertThat(allowed.size() + refused.size()).as("every reply is %d or 429", allowedStatus).isEqualTo(replies.size());
        assertThat(allowed).as("admitted of %d concurrent requests", replies.size()).hasSize(permits);
        assertThat(allowed.stream().map(r -> r.remaining(limit)).toList())
                .as("each admitted request saw its own decision: %s remaining", limit)
                .containsExactlyInAnyOrderElementsOf(LongStream.range(0, permits).boxed().toList());
        refused.forEach(r -> r.assertRefusedBy(r.problemViolatedPolicies().toArray(String[]::new)));
        refused.forEach(r -> assertThat(r.problemViolatedPolicies()).as("refusing limits of %s", r).contains(limit));
    }
}
