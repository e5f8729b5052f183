package dev.ratelimit.tck;

import dev.ratelimit.tck.support.Caller;
import dev.ratelimit.tck.support.PartnerTraffic;
import dev.ratelimit.tck.support.Reply;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * A limit that waits (docs/calls-to-other-services.md) through the example: {@code POST /todos/{id}/share} calls the
 * partner through the MicroProfile Rest Client {@code PartnerClient}, whose limit {@code partner} allows 2 calls a
 * second for the whole application (a strict window: never a third in any second) and lets a call wait up to 5 s for
 * its turn; and {@code POST /partner/inbox} caps its back end with {@code per = APPLICATION} ({@code inbox}, 600 a
 * minute for every caller together).
 *
 * <p>Both counts are the application's, shared by every caller and by every earlier run against the same server, so
 * no test here assumes them fresh. The shares are timed under {@link PartnerTraffic#alone}: no other share of the
 * suite lands in the middle. What this class leaves behind is at most the two permits of the last second (every share
 * it sent has gone when it ends), so a sequence starts with its first pair of turns at most 1.125 s away (a strict
 * window's permit returns a window and a step, 1 s + 125 ms, after the step it was spent in).
 *
 * <p>Every judgement is made from the client's own clock: when a request was sent and when its answer arrived bound
 * when the server decided it. An attempt whose timing cannot be judged (a 429 neither clearly at once nor clearly
 * late) is run again; anything that can be judged is asserted at once.
 */
class PartnerLimitTest extends TckTestBase {

    static final String PARTNER = "partner";
    static final String INBOX = "/partner/inbox";
    static final String INBOX_LIMIT = "inbox";
    private static final String SHARE = TODOS + "/{id}/share";

    private static final long SECOND = Duration.ofSeconds(1).toNanos();
    /** The partner limit's wait, {@code maxWaitMillis = 5000}. */
    private static final long MAX_WAIT = Duration.ofSeconds(5).toNanos();
    /** A refusal answered within this was certainly not held back until its would-be turn (at least 5 s away). */
    private static final long AT_ONCE = MAX_WAIT / 2;
    /**
     * How many of twenty shares surely fit in 5 s: with at most two permits of the count in use when they are sent,
     * pairs of turns come at most 1.125 s, 2.25, 3.375 and 4.5 s after the first share was decided.
     */
    private static final int SURELY_WAITED_FOR = 8;
    private static final int ATTEMPTS = 3;

    private String todo;

    @BeforeEach
    void aTodoToShare() {
        todo = createTodoElsewhere();
    }

    @Test
    void sixSharesFromSixCallersAllGoThroughTheLastNoSoonerThanTwoSecondsAfterTheFirst() {
        List<Reply> replies = PartnerTraffic.alone(() -> sharesAtOnce(6));

        for (Reply reply : replies) {
            reply.assertStatus(204);
            assertThat(reply.policy(PARTNER)).as("the partner limit decided %s", reply).satisfies(p -> {
                assertThat(p.quota()).isEqualTo(2);
                assertThat(p.windowSeconds()).isEqualTo(1);
            });
            assertThat(reply.remaining(MODULE)).as("each share is its own caller's first request: %s", reply).isEqualTo(99);
            assertGlobalSpent(reply, 1);
        }
        // Two shares a second: the fifth and sixth share get the third pair of turns, two windows after the first
        // share was decided (a strict window: two windows and two steps). Their answers cannot come sooner.
        long first = replies.stream().mapToLong(Reply::sentNanos).min().orElseThrow();
        long last = replies.stream().mapToLong(Reply::receivedNanos).max().orElseThrow();
        assertThat(Duration.ofNanos(last - first)).as("from the first share sent to the last answered: %s", replies)
                .isGreaterThanOrEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void twentySharesAtOnceThoseWhoseTurnIsMoreThanFiveSecondsAwayAreRefusedAtOnce() {
        List<String> unjudged = new ArrayList<>();
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            List<Reply> replies = PartnerTraffic.alone(() -> sharesAtOnce(20));
            String why = judgeTwenty(replies);
            if (why == null) {
                return;
            }
            unjudged.add("attempt " + attempt + ": " + why);
        }
        fail("in %d attempts the twenty shares could never be judged: %s", ATTEMPTS, unjudged);
    }

    /** Asserts what the replies show; null when judged, else why they cannot be. */
    private String judgeTwenty(List<Reply> replies) {
        List<Reply> went = new ArrayList<>();
        List<Reply> refused = new ArrayList<>();
        for (Reply reply : replies) {
            if (reply.status() == 204) {
                went.add(reply);
            } else {
                refused.add(reply.assertRefusedBy(PARTNER));
            }
        }
        long firstSent = replies.stream().mapToLong(Reply::sentNanos).min().orElseThrow();
        long lastSent = replies.stream().mapToLong(Reply::sentNanos).max().orElseThrow();
        assertThat(went.size()).as("shares that went (at least %d turns exist within 5 s): %s", SURELY_WAITED_FOR, replies)
                .isGreaterThanOrEqualTo(SURELY_WAITED_FOR);
        // The strict window: every share that went was let through to the partner between its sending and its
        // answer, and no span of a second holds more than two such instants.
        long spanOfTheShares = went.stream().mapToLong(Reply::receivedNanos).max().orElseThrow() - firstSent;
        assertThat((long) went.size()).as("shares that went within %s: %s", Duration.ofNanos(spanOfTheShares), went)
                .isLessThanOrEqualTo(2 * ceilSeconds(spanOfTheShares));
        for (Reply reply : refused) {
            // a refusal spends nothing: the share's module permit (its caller's first) was given back
            assertThat(reply.remaining(MODULE)).as("the module count after a refused share: %s", reply).isEqualTo(100);
            // a validating proxy finds the 429 of a share documented, body and headers included
            OpenApiResponsesTest.assertDocumentedOn(server, "POST", SHARE, reply);
        }
        for (Reply reply : went) {
            assertThat(reply.policy(PARTNER).quota()).isEqualTo(2);
            assertThat(reply.remaining(MODULE)).as("the module count after a share: %s", reply).isEqualTo(99);
        }
        if (lastSent - firstSent > SECOND) {
            return "the twenty were sent over " + Duration.ofNanos(lastSent - firstSent) + ", not at once";
        }
        // Sent within a second, the twenty need ten seconds of turns or more: some are refused.
        assertThat(refused).as("shares refused of twenty sent at once: %s", replies).isNotEmpty();
        // Refused at once: a refusal's turn was more than 5 s away, so one held back until then (or for any part of
        // the wait) would answer late. One answered within half the wait was not; one slower than that cannot be told
        // from a server that paused, and the attempt is run again.
        long slowest = refused.stream().mapToLong(r -> r.receivedNanos() - r.sentNanos()).max().orElseThrow();
        if (slowest >= AT_ONCE) {
            return "a refusal took " + Duration.ofNanos(slowest) + ", too slow to tell from one held back";
        }
        return null;
    }

    @Test
    void perApplicationOnAResourceMethodCountsTwoCallersTogether() {
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            Caller alice = server.withFreshKey();
            Caller bob = server.withFreshKey();
            Reply first = alice.postJson(INBOX, message()).assertStatus(204);
            Reply second = bob.postJson(INBOX, message()).assertStatus(204);

            for (Reply reply : List.of(first, second)) {
                assertThat(reply.policy(INBOX_LIMIT)).as("%s", reply).satisfies(p -> {
                    assertThat(p.quota()).isEqualTo(600);
                    assertThat(p.windowSeconds()).isEqualTo(60);
                });
                // each caller is still counted apart by the limits that count per caller
                assertGlobalSpent(reply, 1);
            }
            assertThat(first.remaining(INBOX_LIMIT)).as("alice's request spent from the count: %s", first)
                    .isLessThanOrEqualTo(599);
            // A permit returns a window after the start of its step: alice's is in the count until 52.5 s after it
            // was spent at the earliest, so bob's answer within that shows it.
            if (second.receivedNanos() - first.sentNanos() < Duration.ofSeconds(52).toNanos()) {
                assertThat(second.remaining(INBOX_LIMIT))
                        .as("bob's request, a caller of his own, saw alice's permit spent too (with a count of his own "
                                + "he would have 599 left): %s, then %s", first, second)
                        .isLessThanOrEqualTo(598);
                return;
            }
        }
        fail("in %d attempts two requests were never answered within 52 s of each other", ATTEMPTS);
    }

    /** {@code count} shares of the test's todo at once, each from a caller of its own. */
    private List<Reply> sharesAtOnce(int count) {
        List<Supplier<Reply>> shares = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Caller caller = server.withFreshKey();
            shares.add(() -> caller.post(todo + "/share"));
        }
        return Caller.atOnce(shares);
    }

    private static String message() {
        return "{\"id\": 1, \"title\": \"" + uniqueTitle() + "\", \"done\": false}";
    }

    private static long ceilSeconds(long nanos) {
        return (nanos + SECOND - 1) / SECOND;
    }
}
