package dev.ratelimit.tck;

import dev.ratelimit.tck.support.Reply;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * All or nothing: a 429 costs nothing (docs/responses.md, "What a request spends"), with the two limits of
 * {@code POST /todos}: {@code burst} (5 per 1 s) and {@code hourly} (500 per hour), plus the global limit when
 * configured. (The bean limit case is in {@link BeanLimitTest}, the cross-scope case in {@link PrincipalScopeTest}.)
 */
class AllOrNothingTest extends TckTestBase {

    @Test
    void refusedBurstLeavesHourlyCountUntouched() {
        Burst burst = exceedBurst(caller -> caller.createTodo(uniqueTitle()));
        Reply refused = burst.sixth().assertRefusedBy(BURST);
        assertThat(refused.limit()).as("RateLimit-Limit of the refusing limit: %s", refused).isEqualTo(5);
        assertThat(refused.policy(BURST)).satisfies(p -> {
            assertThat(p.quota()).isEqualTo(5);
            assertThat(p.windowSeconds()).isEqualTo(1);
        });
        assertThat(refused.findItem(HOURLY)).as("the 429 lists every limit of the request: %s", refused).isPresent();
        // The oldest burst permit returns less than a second from now: rounded up, never 0.
        assertThat(refused.retryAfter()).as("Retry-After of %s", refused).isEqualTo(1);

        // Once Retry-After has passed, the request is allowed; the hourly count shows the five allowed POSTs
        // and this one, not the refused sixth.
        sleepSeconds(refused.retryAfter());
        Reply next = burst.caller().createTodo(uniqueTitle()).assertStatus(201);
        assertThat(next.remaining(HOURLY)).as("hourly r: the refused POST cost nothing: %s", next).isEqualTo(494);
        assertGlobalSpent(next, 6);
    }

    @Test
    void refusedRequestIsNotCreated() {
        String title = uniqueTitle();
        Burst burst = exceedBurst(caller -> caller.createTodo(title));
        burst.sixth().assertRefusedBy(BURST);
        sleepSeconds(burst.sixth().retryAfter());
        // Had the method run for the refused POST, this one would be a 409.
        burst.caller().createTodo(title).assertStatus(201);
    }
}
