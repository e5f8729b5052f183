package dev.ratelimit.core.binding;

import dev.ratelimit.core.RateLimitCaller;
import dev.ratelimit.core.RateLimitPlanResolver;
import dev.ratelimit.core.config.Plan;
import java.util.List;

/**
 * The default plan resolver (docs/operating-limits.md, "Plans"): an authenticated caller is in the first plan, in the
 * order of {@code ratelimit.plans}, whose role it has; an anonymous caller in none. One role check per configured
 * plan at most. Immutable.
 */
public final class RolePlanResolver implements RateLimitPlanResolver {

    private final Plan[] plans;

    public RolePlanResolver(List<Plan> plans) {
        this.plans = plans.toArray(new Plan[0]);
    }

    @Override
    public String plan(RateLimitCaller caller) {
        if (caller.principal() == null) {
            return null;
        }
        for (Plan plan : plans) {
            if (caller.isUserInRole(plan.role())) {
                return plan.name();
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return "RolePlanResolver";
    }
}
