package dev.ratelimit.tck;

import dev.ratelimit.tck.support.Caller;
import dev.ratelimit.tck.support.Reply;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Counting and the 429 for a limit on a CDI bean that is not a resource: {@code GET /todos/export} (module limit)
 * calls {@code ExportService.export()}, limited to 1 per 10 s as {@code export}.
 */
class BeanLimitTest extends TckTestBase {

    @Test
    void exportAnswersCsvWithTheModuleLimit() {
        Reply export = server.withFreshKey().get(EXPORT).assertStatus(200);
        assertThat(export.header("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("text/csv"));
        assertThat(export.remaining(MODULE)).isEqualTo(99);
        assertGlobalSpent(export, 1);
    }

    @Test
    void refusalByTheBeanLimitIsA429DescribingIt() {
        Caller caller = server.withFreshKey();
        caller.get(EXPORT).assertStatus(200);
        Reply refused = caller.get(EXPORT).assertRefusedBy(EXPORT_LIMIT);
        assertThat(refused.retryAfter()).as("Retry-After of %s", refused).isBetween(1L, 10L);
        assertThat(refused.limit()).as("RateLimit-Limit of the refusing limit: %s", refused).isEqualTo(1);
        assertThat(refused.policy(EXPORT_LIMIT)).satisfies(p -> {
            assertThat(p.quota()).isEqualTo(1);
            assertThat(p.windowSeconds()).isEqualTo(10);
        });
        assertThat(refused.limitNames()).as("the refusing limit is listed last: %s", refused).endsWith(EXPORT_LIMIT);
    }

    @Test
    void refusalByTheBeanLimitGivesBackTheModulePermit() {
        Caller caller = server.withFreshKey();
        Reply allowed = caller.get(EXPORT).assertStatus(200);
        assertThat(allowed.remaining(MODULE)).isEqualTo(99);
        caller.get(EXPORT).assertRefusedBy(EXPORT_LIMIT);
        // The refused export passed the module limit (in the filter) before the bean refused: that permit
        // (and the global one, when configured) must have been given back.
        Reply next = caller.get(MISSING_TODO).assertStatus(404);
        assertThat(next.remaining(MODULE)).as("module r: the 429 cost nothing: %s", next).isEqualTo(98);
        assertGlobalSpent(next, 2);
    }

    @Test
    void beanLimitCountsPerPartition() {
        server.withFreshKey().get(EXPORT).assertStatus(200);
        server.withFreshKey().get(EXPORT).assertStatus(200);
        server.asFreshUser().get(EXPORT).assertStatus(200);
    }
}
