package dev.ratelimit.tck;

import dev.ratelimit.tck.support.Caller;
import dev.ratelimit.tck.support.Reply;
import dev.ratelimit.tck.support.ServerUnderTest;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The default partitioner with {@code ratelimit.partition-header=X-Api-Key}: {@code sub:<name>} for
 * an authenticated caller, else {@code X-Api-Key:<value as sent>}, else {@code anonymous}.
 */
class PartitionTest extends TckTestBase {

    /**
     * Attempts at observing the shared anonymous count. Other runs of this suite (or anyone else without key or
     * credentials) may have spent from it within the last minute, so its absolute value is unknown, and one of their
     * permits may come back between two of our requests (at a step boundary, every 7.5 s). Whether one can have is
     * read from the first answer: {@code t} of its module item is the time until the count's oldest permit returns,
     * rounded up, so none returns within {@code t - 1} s of the instant the server counted that request. An attempt
     * whose requests were all answered within that span is judged, exactly and at once; one that took longer (or
     * began less than a second before a return) cannot be, and is run again once that permit is back.
     */
    private static final int ANONYMOUS_ATTEMPTS = 3;
    private static final long SECOND_NANOS = 1_000_000_000L;

    @Test
    void differentKeysCountSeparately() {
        Caller first = server.withFreshKey();
        Caller second = server.withFreshKey();
        assertThat(first.get(TODOS).assertStatus(200).remaining(DEFAULT)).isEqualTo(2);
        assertThat(first.get(TODOS).assertStatus(200).remaining(DEFAULT)).isEqualTo(1);
        Reply other = second.get(TODOS).assertStatus(200);
        assertThat(other.remaining(DEFAULT)).as("another key has a count of its own: %s", other).isEqualTo(2);
        assertGlobalSpent(other, 1);
    }

    @Test
    void keyHeaderNameIsMatchedWithoutRegardToCase() {
        String key = ServerUnderTest.freshName("key");
        Caller canonical = server.anonymous().withHeader("X-Api-Key", key);
        Caller lower = server.anonymous().withHeader("x-api-key", key);
        Caller upper = server.anonymous().withHeader("X-API-KEY", key);
        assertThat(canonical.get(TODOS).assertStatus(200).remaining(DEFAULT)).isEqualTo(2);
        Reply second = lower.get(TODOS).assertStatus(200);
        assertThat(second.remaining(DEFAULT)).as("x-api-key names the same partition: %s", second).isEqualTo(1);
        Reply third = upper.get(TODOS).assertStatus(200);
        assertThat(third.remaining(DEFAULT)).as("X-API-KEY names the same partition: %s", third).isZero();
        upper.get(TODOS).assertRefusedBy(DEFAULT);
    }

    @Test
    void keyValueIsTakenAsSent() {
        String key = ServerUnderTest.freshName("key").toLowerCase(Locale.ROOT);
        assertThat(server.withKey(key).get(TODOS).assertStatus(200).remaining(DEFAULT)).isEqualTo(2);
        Reply other = server.withKey(key.toUpperCase(Locale.ROOT)).get(TODOS).assertStatus(200);
        assertThat(other.remaining(DEFAULT)).as("a value differing in case is another partition: %s", other).isEqualTo(2);
    }

    @Test
    void authenticatedCallerWinsOverKey() {
        String name = ServerUnderTest.freshName("user");
        String firstKey = ServerUnderTest.freshName("key");
        Caller withFirstKey = server.as(name).withHeader("X-Api-Key", firstKey);
        Caller withSecondKey = server.as(name).withHeader("X-Api-Key", ServerUnderTest.freshName("key"));
        Caller withoutKey = server.as(name);

        assertThat(withFirstKey.get(TODOS).assertStatus(200).remaining(DEFAULT)).isEqualTo(2);
        Reply second = withSecondKey.get(TODOS).assertStatus(200);
        assertThat(second.remaining(DEFAULT)).as("same caller, another key, same count: %s", second).isEqualTo(1);
        Reply third = withoutKey.get(TODOS).assertStatus(200);
        assertThat(third.remaining(DEFAULT)).as("same caller, no key, same count: %s", third).isZero();
        assertGlobalSpent(third, 3);

        Reply keyAlone = server.withKey(firstKey).get(TODOS).assertStatus(200);
        assertThat(keyAlone.remaining(DEFAULT)).as("the key's own partition was never charged: %s", keyAlone).isEqualTo(2);
    }

    @Test
    void differentCallersCountSeparately() {
        Caller first = server.asFreshUser();
        assertThat(first.get(TODOS).assertStatus(200).remaining(DEFAULT)).isEqualTo(2);
        assertThat(first.get(TODOS).assertStatus(200).remaining(DEFAULT)).isEqualTo(1);
        Reply other = server.asFreshUser().get(TODOS).assertStatus(200);
        assertThat(other.remaining(DEFAULT)).isEqualTo(2);
    }

    @Test
    void requestsWithoutKeyOrCallerShareOneCount() {
        // Uses the module count (100 per minute) of GET /todos/{id}: this suite spends a handful of anonymous
        // permits per run, so the shared count has room unless the suite runs dozens of times a minute.
        Caller anonymous = server.anonymous();
        judgedWithoutReturns(() -> List.of(anonymous.get(MISSING_TODO).assertStatus(404),
                anonymous.get(MISSING_TODO).assertStatus(404)), replies -> {
            Reply first = replies.get(0);
            Reply second = replies.get(1);
            assertThat(second.remaining(MODULE)).as("the second anonymous request spent from the first's count: %s, then %s",
                    first, second).isEqualTo(first.remaining(MODULE) - 1);
        });
    }

    @Test
    void emptyKeyCountsAsAnonymous() {
        Caller anonymous = server.anonymous();
        Caller emptyKey = server.withKey("");
        judgedWithoutReturns(() -> List.of(anonymous.get(MISSING_TODO).assertStatus(404),
                emptyKey.get(MISSING_TODO).assertStatus(404), anonymous.get(MISSING_TODO).assertStatus(404)), replies -> {
            long before = replies.get(0).remaining(MODULE);
            // With a count of its own, the empty key would leave the anonymous count down by one, not two.
            assertThat(replies.get(1).remaining(MODULE)).as("an empty key spends from the anonymous count: %s", replies)
                    .isEqualTo(before - 1);
            assertThat(replies.get(2).remaining(MODULE)).as("the anonymous count after the empty key's request: %s", replies)
                    .isEqualTo(before - 2);
        });
    }

    /**
     * Sends {@code requests} until the server certainly answered them all before any permit of the shared count could
     * return (see {@link #ANONYMOUS_ATTEMPTS}), and then holds them to {@code judge}; an attempt that cannot be judged
     * is followed by the next once the permit that blurred it is back.
     */
    private static void judgedWithoutReturns(Supplier<List<Reply>> requests, Consumer<List<Reply>> judge) {
        List<String> unjudged = new ArrayList<>();
        for (int attempt = 1; attempt <= ANONYMOUS_ATTEMPTS; attempt++) {
            List<Reply> replies = requests.get();
            Reply first = replies.get(0);
            long firstReturnIn = first.item(MODULE).resetSeconds();
            long atMost = replies.get(replies.size() - 1).receivedNanos() - first.sentNanos();
            if (atMost <= (firstReturnIn - 1) * SECOND_NANOS) {
                judge.accept(replies);
                return;
            }
            unjudged.add(String.format("attempt %d: answered within %d ms, the oldest permit back in at most %d s",
                    attempt, atMost / 1_000_000, firstReturnIn));
            sleepUntil(first.receivedNanos() + firstReturnIn * SECOND_NANOS);
        }
        fail("test timing: in %d attempts a permit of the anonymous count could always have returned between the "
                + "requests: %s", ANONYMOUS_ATTEMPTS, unjudged);
    }
}
