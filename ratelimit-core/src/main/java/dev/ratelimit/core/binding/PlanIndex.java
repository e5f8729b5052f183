package dev.ratelimit.core.binding;

import dev.ratelimit.core.config.Plan;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The plans of {@code ratelimit.plans} by index: 0 stands for callers in no plan, then the plans in order of
 * precedence. A call site's bound requests are kept in arrays of this size, so a caller's plan is an index.
 * Immutable.
 *
 * <p>The library's internals, public for its other packages: not an API.
 */
public final class PlanIndex {

    private final Plan[] plans;
    private final Map<String, Plan> byName = new HashMap<>();

    PlanIndex(List<Plan> configured) {
        this.plans = new Plan[configured.size() + 1];
        for (Plan plan : configured) {
            plans[plan.index()] = plan;
            byName.put(plan.name(), plan);
        }
    }

    /** Plans plus one (index 0: no plan). */
    public int size() {
        return plans.length;
    }

    /** The plan at {@code index}; null at 0. */
    public Plan get(int index) {
        return plans[index];
    }

    /** The plan of that name, or null. */
    public Plan named(String name) {
        return byName.get(name);
    }

    /** The name of the plan at {@code index}; null at 0. */
    public String name(int index) {
        return index == 0 ? null : plans[index].name();
    }
}
