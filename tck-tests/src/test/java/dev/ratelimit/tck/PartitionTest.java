package dev.ratelimit.tck;

import dev.ratelimit.tck.support.Caller;
import dev.ratelimit.tck.support.Reply;
import dev.ratelimit.tck.support.ServerUnderTest;
import org.junit.jupiter.api.Test;

import java.util.Locale;
import java.util.function.IntPredicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SPEC 5, the default partitioner with {@code ratelimit.partition-header=X-Api-Key}: {@code sub:<name>} for
 * an authenticated caller, else {@code X-Api-Key:<value as sent>}, else {@code anonymous}.
 */
class PartitionTest extends TckTestBase {

    /**
     * Attempts at observing the shared anonymous count. Other runs of this suite (or anyone else without
     * key or credentials) may have spent from it within the last minute, so its absolute value is unknown,
     * and one of their permits may come back between two of our requests (at a step boundary, every 7.5 s).
     * Each attempt therefore compares consecutive requests, and is repeated when a returned permit blurred it.
     */
    private static final int ANONYMOUS_ATTEMPTS = 3;

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
        assertConsecutiveAnonymousRequests(attempt -> {
            long first = anonymous.get(MISSING_TODO).assertStatus(404).remaining(MODULE);
            long second = anonymous.get(MISSING_TODO).assertStatus(404).remaining(MODULE);
            return second == first - 1;
        });
    }

    @Test
    void emptyKeyCountsAsAnonymous() {
        Caller anonymous = server.anonymous();
        Caller emptyKey = server.withKey("");
        assertConsecutiveAnonymousRequests(attempt -> {
            long before = anonymous.get(MISSING_TODO).assertStatus(404).remaining(MODULE);
            long empty = emptyKey.get(MISSING_TODO).assertStatus(404).remaining(MODULE);
            long after = anonymous.get(MISSING_TODO).assertStatus(404).remaining(MODULE);
            // With a count of its own, the empty key would leave the anonymous count down by one, not two.
            return empty == before - 1 && after == before - 2;
        });
    }

    /** Passes when one attempt sees the counts it expects; see {@link #ANONYMOUS_ATTEMPTS}. */
    private static void assertConsecutiveAnonymousRequests(IntPredicate attempt) {
        boolean seen = false;
        for (int i = 1; i <= ANONYMOUS_ATTEMPTS && !seen; i++) {
            seen = attempt.test(i);
        }
        assertThat(seen).as("in %d attempts, consecutive anonymous requests never spent from one shared count",
                ANONYMOUS_ATTEMPTS).isTrue();
    }
}
