package dev.ratelimit.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.binding.RolePlanResolver;
import dev.ratelimit.core.config.RateLimitSettings;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The default plan: the first plan, in order, whose role an authenticated caller has. */
class RolePlanResolverTest {

    private final RolePlanResolver resolver = new RolePlanResolver(RateLimitSettings.of(Map.of(
            "ratelimit.plans", "internal,gold,silver",
            "ratelimit.plans.internal.role", "service")).plans());

    @Test
    void callerIsInThePlanWhoseRoleItHas() {
        assertThat(resolver.plan(TestCaller.user("alice", "gold"))).isEqualTo("gold");
        assertThat(resolver.plan(TestCaller.user("batch", "service"))).isEqualTo("internal");
    }

    @Test
    void firstPlanInOrderWins() {
        assertThat(resolver.plan(TestCaller.user("alice", "silver", "gold"))).isEqualTo("gold");
        assertThat(resolver.plan(TestCaller.user("batch", "silver", "service", "gold"))).isEqualTo("internal");
    }

    @Test
    void roleNamedLikeAPlanWhoseRoleIsAnotherDoesNotPutTheCallerInIt() {
        assertThat(resolver.plan(TestCaller.user("mallory", "internal"))).isNull();
    }

    @Test
    void callerWithoutAPlansRoleOrWithoutAPrincipalIsInNoPlan() {
        assertThat(resolver.plan(TestCaller.user("bob", "user"))).isNull();
        assertThat(resolver.plan(TestCaller.anonymous())).isNull();
    }
}
