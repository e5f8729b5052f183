package dev.ratelimit.tck;

import dev.ratelimit.tck.support.Caller;
import dev.ratelimit.tck.support.RateLimitHeaders;
import dev.ratelimit.tck.support.Reply;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rate-limit header fields themselves (docs/responses.md, "Headers"). Every response the suite receives is parsed
 * with an RFC 8941 parser and checked on arrival (see {@link RateLimitHeaders}): {@code RateLimit-Limit},
 * {@code -Remaining}, {@code -Reset} and {@code Retry-After} are sf-integers, {@code RateLimit-Policy} and
 * {@code RateLimit} are lists of sf-strings with exactly the parameters {@code q,w} and {@code r,t}. These tests cover
 * each kind of response on purpose and check the order of the limits.
 */
class HeaderFieldsTest extends TckTestBase {

    @Test
    void everyKindOfLimitedResponseCarriesValidFields() {
        Caller caller = server.withFreshKey();
        List<Reply> replies = List.of(
                caller.get(TODOS).assertStatus(200),
                caller.head(TODOS).assertStatus(200),
                caller.createTodo(uniqueTitle()).assertStatus(201),
                caller.postJson(TODOS, "[1, 2").assertStatus(400),
                caller.get(MISSING_TODO).assertStatus(404),
                caller.get(EXPORT).assertStatus(200),
                caller.get(EXPORT).assertStatus(429),
                server.asFreshUser().delete(MISSING_TODO).assertStatus(404));
        for (Reply reply : replies) {
            assertThat(reply.hasRateLimitHeaders()).as("fields of %s", reply).isTrue();
            for (String list : List.of(RateLimitHeaders.POLICY, RateLimitHeaders.RATE_LIMIT)) {
                assertThat(reply.canonical(list)).as("%s of %s", list, reply).isNotBlank();
            }
        }
    }

    @Test
    void limitsAreListedGlobalFirstThenMethodLimitsInDeclarationOrder() {
        Caller caller = server.withFreshKey();
        assertThat(caller.get(TODOS).assertStatus(200).limitNames()).isEqualTo(withGlobal(DEFAULT));
        assertThat(caller.get(MISSING_TODO).assertStatus(404).limitNames()).isEqualTo(withGlobal(MODULE));
        assertThat(caller.createTodo(uniqueTitle()).assertStatus(201).limitNames()).isEqualTo(withGlobal(BURST, HOURLY));
        assertThat(server.asFreshUser().delete(MISSING_TODO).assertStatus(404).limitNames()).isEqualTo(withGlobal(DELETE));
    }

    @Test
    void allowedResponseDescribesTheLastLimitInOrder() {
        Reply created = server.withFreshKey().createTodo(uniqueTitle()).assertStatus(201);
        assertThat(created.limit()).as("RateLimit-Limit is hourly's q: %s", created).isEqualTo(500);
        assertThat(created.remaining()).isEqualTo(499);
        assertThat(created.reset()).isEqualTo(3600);
        assertThat(created.item(BURST)).satisfies(i -> {
            assertThat(i.remaining()).isEqualTo(4);
            assertThat(i.resetSeconds()).isEqualTo(1);
        });
        assertThat(created.retryAfterIfSent()).isEmpty();
    }

    @Test
    void retryAfterBelowOneSecondIsRoundedUpToOne() {
        // The oldest burst permit returns within the second: a wait of some milliseconds, never sent as 0.
        Reply refused = exceedBurst(caller -> caller.createTodo(uniqueTitle())).sixth().assertRefusedBy(BURST);
        assertThat(refused.retryAfter()).isEqualTo(1);
        assertThat(refused.reset()).isEqualTo(1);
        assertThat(refused.item(BURST).resetSeconds()).isEqualTo(1);
    }

    private List<String> withGlobal(String... names) {
        List<String> expected = new ArrayList<>();
        if (global().isPresent()) {
            expected.add(GLOBAL);
        }
        expected.addAll(List.of(names));
        return expected;
    }
}
