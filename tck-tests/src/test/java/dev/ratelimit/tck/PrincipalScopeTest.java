package dev.ratelimit.tck;

import dev.ratelimit.tck.support.Caller;
import dev.ratelimit.tck.support.Reply;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The two scopes (docs/declaring-limits.md) with {@code DELETE /todos/{id}}: its limit {@code delete} (2 per 60 s) has
 * scope PRINCIPAL, so it decides after the example's authorization filter, which answers 401 to a request without a
 * caller.
 */
class PrincipalScopeTest extends TckTestBase {

    @Test
    void unauthorizedRequestNeverReachesPrincipalLimit() {
        Reply unauthorized = server.withFreshKey().delete(createTodoElsewhere()).assertStatus(401);
        assertThat(unauthorized.findPolicy(DELETE)).as("the PRINCIPAL limit was not reached: %s", unauthorized).isEmpty();
        if (global().isEmpty()) {
            unauthorized.assertNoRateLimitHeaders();
        } else {
            // The global limit is TRANSPORT scope and covers DELETE: it decided before authorization.
            assertThat(unauthorized.limitNames()).as("only the global limit reached %s", unauthorized).containsExactly(GLOBAL);
            assertGlobalSpent(unauthorized, 1);
        }
    }

    @Test
    void deleteLimitSpendsOnEveryAnswerAndRefusesTheThird() {
        String first = createTodoElsewhere();
        String second = createTodoElsewhere();
        Caller caller = server.asFreshUser();

        Reply deleted = caller.delete(first).assertStatus(204);
        assertThat(deleted.policy(DELETE)).satisfies(p -> {
            assertThat(p.quota()).isEqualTo(2);
            assertThat(p.windowSeconds()).isEqualTo(60);
        });
        assertThat(deleted.remaining(DELETE)).isEqualTo(1);
        assertThat(deleted.limit()).isEqualTo(2);
        assertGlobalSpent(deleted, 1);

        Reply gone = caller.delete(first).assertStatus(404);
        assertThat(gone.remaining(DELETE)).as("a 404 from the method spends: %s", gone).isZero();

        Reply refused = caller.delete(second).assertRefusedBy(DELETE);
        assertThat(refused.limit()).isEqualTo(2);
        assertThat(refused.retryAfter()).isBetween(1L, 60L);
        server.withFreshKey().get(second).assertStatus(200);

        Reply otherCaller = server.asFreshUser().delete(second).assertStatus(204);
        assertThat(otherCaller.remaining(DELETE)).as("another caller has a count of its own: %s", otherCaller).isEqualTo(1);
    }

    @Test
    void principalRefusalGivesBackTheTransportPermit() {
        assumeTrue(global().isPresent(), "needs a global limit (TRANSPORT scope) beside the PRINCIPAL limit: "
                + "run with -Dtck.globalPermitLimit=<the server's ratelimit.global.permit-limit>");
        Caller caller = server.asFreshUser();
        caller.delete(MISSING_TODO).assertStatus(404);
        caller.delete(MISSING_TODO).assertStatus(404);
        caller.delete(MISSING_TODO).assertRefusedBy(DELETE);
        // The refused DELETE passed the global limit first (TRANSPORT) and was refused after authorization
        // (PRINCIPAL): the global permit it took must have been given back.
        Reply next = caller.get(MISSING_TODO).assertStatus(404);
        assertGlobalSpent(next, 3);
    }
}
