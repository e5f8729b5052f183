package dev.ratelimit.tck;

import dev.ratelimit.tck.support.Caller;
import dev.ratelimit.tck.support.Reply;
import dev.ratelimit.tck.support.ServerUnderTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Plans through the example's configuration ({@code ratelimit.plans=gold},
 * {@code ratelimit.plans.gold.limits.default.permit-limit=10}, {@code ratelimit.plans.gold.limits.export.mode=off}):
 * callers in the role {@code gold} ({@code Authorization: Bearer <name>:gold}) get their plan's values, count
 * apart from the callers in no plan, and see their plan's values in the headers.
 */
class PlansTest extends TckTestBase {

    private Caller gold(String name) {
        return server.anonymous().withHeader("Authorization", "Bearer " + name + ":gold");
    }

    @Test
    void aGoldCallerMayListTenTimesAMinuteAndSeesTenInTheHeaders() {
        Caller caller = gold(ServerUnderTest.freshName("gold"));
        for (int i = 1; i <= 10; i++) {
            Reply reply = caller.get(TODOS).assertStatus(200);
            assertThat(reply.policy(DEFAULT).quota()).as("q of the gold plan: %s", reply).isEqualTo(10);
            assertThat(reply.remaining(DEFAULT)).as("r after %d requests: %s", i, reply).isEqualTo(10 - i);
            assertThat(reply.limit()).isEqualTo(10);
        }
        Reply refused = caller.get(TODOS).assertRefusedBy(DEFAULT);
        assertThat(refused.limit()).isEqualTo(10);
        assertThat(refused.policy(DEFAULT).quota()).isEqualTo(10);
    }

    @Test
    void aCallerInNoPlanKeepsTheDeclaredThreeAMinute() {
        Caller caller = server.asFreshUser();
        for (int i = 1; i <= 3; i++) {
            assertThat(caller.get(TODOS).assertStatus(200).policy(DEFAULT).quota()).isEqualTo(3);
        }
        caller.get(TODOS).assertRefusedBy(DEFAULT);
    }

    @Test
    void aRoleThatIsNoPlanChangesNothing() {
        Caller caller = server.anonymous().withHeader("Authorization",
                "Bearer " + ServerUnderTest.freshName("silver") + ":silver");
        for (int i = 1; i <= 3; i++) {
            assertThat(caller.get(TODOS).assertStatus(200).policy(DEFAULT).quota()).isEqualTo(3);
        }
        caller.get(TODOS).assertRefusedBy(DEFAULT);
    }

    @Test
    void aCallerMovedToThePlanStartsAFreshCountThere() {
        String name = ServerUnderTest.freshName("upgraded");
        Caller before = server.as(name);
        for (int i = 1; i <= 3; i++) {
            before.get(TODOS).assertStatus(200);
        }
        before.get(TODOS).assertRefusedBy(DEFAULT);

        Reply asGold = gold(name).get(TODOS).assertStatus(200);

        assertThat(asGold.remaining(DEFAULT)).as("the same partition, a count of its own in the plan: %s", asGold)
                .isEqualTo(9);
    }

    @Test
    void aGoldCallerIsNotLimitedByExportButStillByTheModule() {
        Caller caller = gold(ServerUnderTest.freshName("exporter"));

        Reply first = caller.get(EXPORT).assertStatus(200);
        Reply second = caller.get(EXPORT).assertStatus(200);
        Reply third = caller.get(EXPORT).assertStatus(200);

        assertThat(second.findPolicy(EXPORT_LIMIT)).as("export is off for gold: %s", second).isEmpty();
        assertThat(first.remaining(MODULE)).isEqualTo(99);
        assertThat(third.remaining(MODULE)).as("the module limit still counts: %s", third).isEqualTo(97);
    }

    @Test
    void exportStillLimitsACallerInNoPlan() {
        Caller caller = server.asFreshUser();
        caller.get(EXPORT).assertStatus(200);
        caller.get(EXPORT).assertRefusedBy(EXPORT_LIMIT);
    }
}
