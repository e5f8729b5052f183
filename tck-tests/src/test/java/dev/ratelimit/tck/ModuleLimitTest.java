package dev.ratelimit.tck;

import dev.ratelimit.tck.support.Caller;
import dev.ratelimit.tck.support.Reply;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The module limit ({@code module}, 100 per 60 s, on the Application): it covers every
 * resource method without a limit of its own, and methods sharing it spend from one count.
 */
class ModuleLimitTest extends TckTestBase {

    @Test
    void moduleLimitAllowsOneHundredThenRefuses() {
        assumeTrue(global().isEmpty() || global().getAsInt() >= 100,
                "a global limit below 100 refuses before the module limit can be reached on one partition");
        Caller caller = server.withFreshKey();
        for (int i = 1; i <= 100; i++) {
            Reply reply = caller.get(MISSING_TODO).assertStatus(404);
            assertThat(reply.remaining(MODULE)).as("module r after %d requests: %s", i, reply).isEqualTo(100 - i);
            assertThat(reply.limit()).isEqualTo(100);
        }
        List<String> refusing = new ArrayList<>(List.of(MODULE));
        if (global().isPresent() && global().getAsInt() == 100) {
            refusing.add(GLOBAL); // full at the same request
        }
        Reply refused = caller.get(MISSING_TODO).assertRefusedBy(refusing.toArray(String[]::new));
        assertThat(refused.limit()).isEqualTo(100);
        assertThat(refused.retryAfter()).isBetween(1L, 60L);
    }

    @Test
    void methodsCoveredByTheModuleShareOneCount() {
        Caller caller = server.withFreshKey();
        assertThat(caller.get(MISSING_TODO).assertStatus(404).remaining(MODULE)).isEqualTo(99);
        Reply export = caller.get(EXPORT).assertStatus(200);
        assertThat(export.remaining(MODULE)).as("GET /todos/export spends from the same count: %s", export).isEqualTo(98);
        assertThat(caller.get(MISSING_TODO).assertStatus(404).remaining(MODULE)).isEqualTo(97);
    }

    @Test
    void methodWithItsOwnLimitIsNotCoveredByTheModule() {
        Caller caller = server.withFreshKey();
        Reply list = caller.get(TODOS).assertStatus(200);
        assertThat(list.findPolicy(MODULE)).as("GET /todos has its own limit: %s", list).isEmpty();
        Reply created = caller.createTodo(uniqueTitle()).assertStatus(201);
        assertThat(created.findPolicy(MODULE)).as("POST /todos has its own limits: %s", created).isEmpty();
        Reply deleted = server.asFreshUser().delete(MISSING_TODO).assertStatus(404);
        assertThat(deleted.findPolicy(MODULE)).as("DELETE /todos/{id} has its own limit: %s", deleted).isEmpty();

        Reply missing = caller.get(MISSING_TODO).assertStatus(404);
        assertThat(missing.remaining(MODULE)).as("no module permit was spent before: %s", missing).isEqualTo(99);
        assertThat(missing.policy(MODULE)).satisfies(p -> {
            assertThat(p.quota()).isEqualTo(100);
            assertThat(p.windowSeconds()).isEqualTo(60);
        });
    }
}
