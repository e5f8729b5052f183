package dev.ratelimit.tck;

import dev.ratelimit.tck.support.Caller;
import dev.ratelimit.tck.support.RawHttp;
import dev.ratelimit.tck.support.Reply;
import dev.ratelimit.tck.support.ServerUnderTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a request spends (docs/responses.md): an allowed request spends whatever the response; a request that matches no
 * resource method spends nothing; a refused request's body is never read.
 */
class SpendingTest extends TckTestBase {

    private static final String MALFORMED_JSON = "{\"title\": ";

    @Test
    void unbindableBodySpendsFromEveryLimit() {
        Caller caller = server.withFreshKey();
        Reply badRequest = caller.postJson(TODOS, MALFORMED_JSON).assertStatus(400);
        assertThat(badRequest.hasRateLimitHeaders()).as("a 400 of a limited method carries the fields: %s", badRequest).isTrue();
        assertThat(badRequest.remaining(BURST)).isEqualTo(4);
        assertThat(badRequest.remaining(HOURLY)).isEqualTo(499);
        assertGlobalSpent(badRequest, 1);

        Reply created = caller.createTodo(uniqueTitle()).assertStatus(201);
        assertThat(created.remaining(BURST)).as("the 400 spent a burst permit: %s", created).isEqualTo(3);
        assertThat(created.remaining(HOURLY)).as("the 400 spent an hourly permit: %s", created).isEqualTo(498);
        assertGlobalSpent(created, 2);
    }

    @Test
    void requestOverTheLimitWithAMalformedBodyIsA429NotA400() {
        Burst burst = exceedBurst(caller -> caller.postJson(TODOS, MALFORMED_JSON));
        burst.sixth().assertRefusedBy(BURST);
    }

    /**
     * The body of a refused request is never read: the client announces a body and never sends it; a server
     * that read the body before deciding would wait for it (until the socket's read timeout fails the test),
     * this one answers the 429 at once.
     */
    @Test
    void requestOverTheLimitIsRefusedWithoutItsBodyBeingRead() throws Exception {
        String key = ServerUnderTest.freshName("unread");
        Caller caller = server.withKey(key);
        for (int i = 0; i < 100; i++) {
            caller.get(MISSING_TODO).assertStatus(404); // the module limit (100 a minute) is spent
        }

        String statusLine = RawHttp.statusLineOfBodilessPost(server.resolve("/todos/import"), key, 1000);

        assertThat(statusLine).as("answered before the announced body was sent").startsWith("HTTP/1.1 429");
    }

    @Test
    void conflictSpends() {
        Caller caller = server.withFreshKey();
        String title = uniqueTitle();
        Reply created = caller.createTodo(title).assertStatus(201);
        assertThat(created.header("Location")).as("201 has a Location: %s", created).isPresent();
        assertThat(created.json().path("title").asText()).isEqualTo(title);

        Reply conflict = caller.createTodo(title).assertStatus(409);
        assertThat(conflict.remaining(BURST)).as("the 409 spent: %s", conflict).isEqualTo(3);
        assertThat(conflict.remaining(HOURLY)).as("the 409 spent: %s", conflict).isEqualTo(498);
        assertGlobalSpent(conflict, 2);

        Reply next = caller.createTodo(uniqueTitle()).assertStatus(201);
        assertThat(next.remaining(HOURLY)).isEqualTo(497);
    }

    @Test
    void notFoundFromTheMethodSpends() {
        Caller caller = server.withFreshKey();
        Reply first = caller.get(MISSING_TODO).assertStatus(404);
        assertThat(first.remaining(MODULE)).as("a 404 from the method spends: %s", first).isEqualTo(99);
        Reply second = caller.get(MISSING_TODO).assertStatus(404);
        assertThat(second.remaining(MODULE)).isEqualTo(98);
        assertGlobalSpent(second, 2);
    }

    @Test
    void headSpendsFromTheGetCount() {
        Caller caller = server.withFreshKey();
        Reply head = caller.head(TODOS).assertStatus(200);
        assertThat(head.remaining(DEFAULT)).as("HEAD spends from GET /todos's limit: %s", head).isEqualTo(2);
        assertThat(head.policy(DEFAULT).quota()).isEqualTo(3);
        Reply get = caller.get(TODOS).assertStatus(200);
        assertThat(get.remaining(DEFAULT)).as("HEAD and GET spent one each: %s", get).isEqualTo(1);
        assertGlobalSpent(get, 2);
    }

    @Test
    void headIsRefusedOnceTheGetCountIsSpent() {
        Caller caller = server.withFreshKey();
        for (int i = 0; i < 3; i++) {
            caller.get(TODOS).assertStatus(200);
        }
        Reply refused = caller.head(TODOS).assertStatus(429);
        assertThat(refused.retryAfter()).as("Retry-After of %s", refused).isBetween(1L, 60L);
        assertThat(refused.remaining(DEFAULT)).isZero();
        assertThat(refused.limitNames()).as("the refusing limit is listed last: %s", refused).endsWith(DEFAULT);
    }

    @Test
    void methodNotAllowedSpendsNothingAndCarriesNoHeaders() {
        Caller caller = server.withFreshKey();
        caller.put(TODOS).assertStatus(405).assertNoRateLimitHeaders();
        caller.put(MISSING_TODO).assertStatus(405).assertNoRateLimitHeaders();
        caller.put(EXPORT).assertStatus(405).assertNoRateLimitHeaders();

        Reply list = caller.get(TODOS).assertStatus(200);
        assertThat(list.remaining(DEFAULT)).isEqualTo(2);
        Reply missing = caller.get(MISSING_TODO).assertStatus(404);
        assertThat(missing.remaining(MODULE)).as("the 405s on module-covered paths spent nothing: %s", missing).isEqualTo(99);
        assertGlobalSpent(missing, 2);
    }

    @Test
    void unknownPathSpendsNothingAndCarriesNoHeaders() {
        Caller caller = server.withFreshKey();
        caller.get("/nope").assertStatus(404).assertNoRateLimitHeaders();
        caller.get("/todos/1/nope").assertStatus(404).assertNoRateLimitHeaders();

        Reply missing = caller.get(MISSING_TODO).assertStatus(404);
        assertThat(missing.remaining(MODULE)).as("the unknown paths spent nothing: %s", missing).isEqualTo(99);
        assertGlobalSpent(missing, 1);
    }
}
