package dev.ratelimit.tck;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ratelimit.tck.support.Caller;
import dev.ratelimit.tck.support.Reply;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A count goes down by one per allowed request, and a full count refuses at once. */
class CountingTest extends TckTestBase {

    @Test
    void remainingCountsDownByOnePerRequest() {
        Caller caller = server.withFreshKey();
        for (int i = 1; i <= 3; i++) {
            Reply reply = caller.get(TODOS).assertStatus(200);
            assertThat(reply.remaining()).as("RateLimit-Remaining after %d requests: %s", i, reply).isEqualTo(3 - i);
            assertThat(reply.remaining(DEFAULT)).isEqualTo(3 - i);
            assertThat(reply.limit()).isEqualTo(3);
            assertGlobalSpent(reply, i);
            JsonNode todos = reply.json();
            assertThat(todos.isArray()).as("GET /todos answers a JSON array: %s", reply).isTrue();
            todos.forEach(todo -> assertThat(todo.has("id") && todo.has("title") && todo.has("done"))
                    .as("todo %s has id, title and done", todo).isTrue());
        }
    }

    @Test
    void requestOverTheLimitIsRefusedAtOnceWithProblemDetails() {
        Caller caller = server.withFreshKey();
        long start = System.nanoTime();
        for (int i = 0; i < 3; i++) {
            caller.get(TODOS).assertStatus(200);
        }
        Reply refused = caller.get(TODOS).assertRefusedBy(DEFAULT);
        assertThat(refused.limit()).as("RateLimit-Limit of the refusing limit").isEqualTo(3);
        assertThat(refused.policy(DEFAULT)).satisfies(p -> assertThat(p.quota()).isEqualTo(3));
        assertThat(refused.limitNames()).as("the refusing limit is listed last: %s", refused).endsWith(DEFAULT);
        if (refused.receivedNanos() - start < 1_000_000_000L) {
            // The oldest permit was spent less than a second ago and returns 60 s after it: the wait rounds up to 60.
            assertThat(refused.retryAfter()).as("Retry-After of %s", refused).isEqualTo(60);
        }
        assertThat(refused.retryAfter()).isBetween(1L, 60L);
    }

    @Test
    void refusedRequestsDoNotSpend() {
        Caller caller = server.withFreshKey();
        for (int i = 0; i < 3; i++) {
            caller.get(TODOS).assertStatus(200);
        }
        Reply fourth = caller.get(TODOS).assertRefusedBy(DEFAULT);
        Reply fifth = caller.get(TODOS).assertRefusedBy(DEFAULT);
        assertThat(fifth.retryAfter()).as("a refusal does not push the count's reset out: %s then %s", fourth, fifth)
                .isLessThanOrEqualTo(fourth.retryAfter());
        // The global count (when configured) is the one this partition shares with other methods: it shows
        // three spent requests, not five, and the module count that GET /todos/{id} spends from is untouched.
        Reply other = caller.get(MISSING_TODO).assertStatus(404);
        assertGlobalSpent(other, 4);
        assertThat(other.remaining(MODULE)).isEqualTo(99);
    }

    @Test
    void resourceThatIsACdiBeanSpendsExactlyOncePerRequest() {
        // TodoResource is a CDI bean: the interceptor fires on it as well as the filter, and still each
        // request spends one permit from each of its limits.
        Caller caller = server.withFreshKey();
        int spent = 0;
        for (int i = 1; i <= 3; i++) {
            Reply list = caller.get(TODOS).assertStatus(200);
            assertThat(list.remaining(DEFAULT)).as("default r after %d GET /todos: %s", i, list).isEqualTo(3 - i);
            assertGlobalSpent(list, ++spent);
        }
        for (int i = 1; i <= 3; i++) {
            Reply missing = caller.get(MISSING_TODO).assertStatus(404);
            assertThat(missing.remaining(MODULE)).as("module r after %d GET /todos/{id}: %s", i, missing).isEqualTo(100 - i);
            assertGlobalSpent(missing, ++spent);
        }
        for (int i = 1; i <= 2; i++) {
            Reply created = caller.createTodo(uniqueTitle()).assertStatus(201);
            assertThat(created.remaining(BURST)).as("burst r after %d POSTs: %s", i, created).isEqualTo(5 - i);
            assertThat(created.remaining(HOURLY)).as("hourly r after %d POSTs: %s", i, created).isEqualTo(500 - i);
            assertGlobalSpent(created, ++spent);
        }
        Caller user = server.asFreshUser();
        for (int i = 1; i <= 2; i++) {
            Reply deleted = user.delete(MISSING_TODO).assertStatus(404);
            assertThat(deleted.remaining(DELETE)).as("delete r after %d DELETEs: %s", i, deleted).isEqualTo(2 - i);
            assertGlobalSpent(deleted, i);
        }
    }
}
