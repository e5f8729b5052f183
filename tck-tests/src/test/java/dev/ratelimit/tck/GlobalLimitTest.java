package dev.ratelimit.tck;

import dev.ratelimit.tck.support.Caller;
import dev.ratelimit.tck.support.Reply;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The global limit ({@code ratelimit.global.permit-limit}; name {@code application}, 60 s,
 * TRANSPORT): it covers every resource method in addition to its own limits, and is listed first.
 */
class GlobalLimitTest extends TckTestBase {

    /**
     * Exhausting the global count on one partition within a minute: three {@code GET /todos} (its own limit
     * allows three), then {@code GET /todos/{id}}, whose module limit (100) must keep room so that the global
     * limit refuses alone. Larger global limits would need more of the slow endpoints than a test can afford.
     */
    private static final int MOST_EXHAUSTIBLE = 3 + 99;

    private int limit;

    @BeforeEach
    void requireGlobalLimit() {
        assumeTrue(global().isPresent(), "the server under test runs without a global limit (tck.globalPermitLimit "
                + "is unset or none for an external server, none for the embedded one)");
        limit = global().getAsInt();
    }

    @Test
    void everyLimitedResponseListsTheGlobalLimitFirst() {
        Caller caller = server.withFreshKey();
        Reply[] replies = {
                caller.get(TODOS).assertStatus(200),
                caller.head(TODOS).assertStatus(200),
                caller.get(MISSING_TODO).assertStatus(404),
                caller.createTodo(uniqueTitle()).assertStatus(201),
                caller.get(EXPORT).assertStatus(200),
                caller.delete(MISSING_TODO).assertStatus(401),
                server.asFreshUser().delete(MISSING_TODO).assertStatus(404),
        };
        for (Reply reply : replies) {
            assertThat(reply.limitNames()).as("limits of %s", reply).first().isEqualTo(GLOBAL);
            assertThat(reply.policy(GLOBAL)).as("global policy of %s", reply).satisfies(p -> {
                assertThat(p.quota()).isEqualTo(limit);
                assertThat(p.windowSeconds()).isEqualTo(60);
            });
        }
        assertGlobalSpent(replies[5], 6);
    }

    @Test
    void globalLimitRefusesAloneWhenTheOtherLimitsHaveRoom() {
        Caller caller = server.withFreshKey();
        String todo = createTodoElsewhere();
        exhaustGlobal(caller, todo);

        Reply refused = caller.get(todo).assertRefusedBy(GLOBAL);
        assertThat(refused.limit()).as("RateLimit-Limit of the refusing limit: %s", refused).isEqualTo(limit);
        assertThat(refused.limitNames()).as("the refusing limit is listed last: %s", refused).endsWith(GLOBAL);
        assertThat(refused.retryAfter()).isBetween(1L, 60L);
        // Other partitions are not affected.
        server.withFreshKey().get(todo).assertStatus(200);
    }

    @Test
    void laterFilterAnswersInsteadOfTheRefusal() {
        Caller caller = server.withFreshKey();
        String todo = createTodoElsewhere();
        exhaustGlobal(caller, todo);
        caller.get(todo).assertRefusedBy(GLOBAL);

        // Refused by the global limit (TRANSPORT) and by the authorization filter after it: the filter's
        // answer is sent, without rate-limit fields (scope PRINCIPAL).
        caller.delete(todo).assertStatus(401).assertNoRateLimitHeaders();
        server.withFreshKey().get(todo).assertStatus(200);
    }

    /** Spends exactly the global limit on the caller's partition, every request allowed. */
    private void exhaustGlobal(Caller caller, String todo) {
        assumeTrue(limit <= MOST_EXHAUSTIBLE, "exhausting a global limit of " + limit + " takes too long for this "
                + "suite (at most " + MOST_EXHAUSTIBLE + "); run with -Dtck.globalPermitLimit=100 to cover it");
        int spent = 0;
        for (int i = 0; i < Math.min(3, limit); i++) {
            Reply list = caller.get(TODOS).assertStatus(200);
            assertGlobalSpent(list, ++spent);
        }
        while (spent < limit) {
            Reply one = caller.get(todo).assertStatus(200);
            assertGlobalSpent(one, ++spent);
        }
    }
}
