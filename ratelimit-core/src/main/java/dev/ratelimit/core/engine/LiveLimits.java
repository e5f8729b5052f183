package dev.ratelimit.core.engine;

import dev.ratelimit.core.RateLimitPlanResolver;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.config.RateLimitSettings;
import java.util.Map;

/**
 * Live values (SPEC 19): one configuration as every call site is bound in it, immutable. The binder publishes a
 * new one (one volatile write) when the configuration changes or a call site is bound; a request reads the
 * current one once, when its ledger is made ({@link RequestLedger}), and decides all its limits in it: one
 * volatile read per request, and no request sees half of a change.
 *
 * <p>{@code sites[i]} is the call site of {@link BoundLimits#index} {@code i}: per plan, the request the store is
 * asked and its bound keys.
 */
final class LiveLimits {

    /** The engine whose configuration this is. */
    final RateLimitEngine engine;
    final long generation;
    final RateLimitSettings settings;
    final PlanIndex plans;
    /** The default resolver on this configuration's plans; null when the application has its own. */
    final RateLimitPlanResolver roles;
    final Site[] sites;
    /** Every (name, plan) bound, by {@code name} or {@code name/plan}. */
    final Map<String, BoundKey> keys;

    LiveLimits(RateLimitEngine engine, long generation, RateLimitSettings settings, PlanIndex plans, RateLimitPlanResolver roles, Site[] sites,
               Map<String, BoundKey> keys) {
        this.engine = engine;
        this.generation = generation;
        this.settings = settings;
        this.plans = plans;
        this.roles = roles;
        this.sites = sites;
        this.keys = keys;
    }

    /** The same configuration with one more call site (the binder's lock held). */
    LiveLimits with(Site site, Map<String, BoundKey> keys) {
        Site[] more = java.util.Arrays.copyOf(sites, sites.length + 1);
        more[sites.length] = site;
        return new LiveLimits(engine, generation, settings, plans, roles, more, keys);
    }

    /** True when counts are kept per plan (plans exist: SPEC 13), so a caller's plan is needed before deciding. */
    boolean countsPerPlan() {
        return plans.size() > 1;
    }

    /** One call site in one configuration: per plan (index 0: no plan) its request, or null when no limit applies. */
    static final class Site {
        final RateLimitRequest[] byPlan;
        final BoundKey[][] keysByPlan;
        final boolean empty;

        Site(RateLimitRequest[] byPlan, BoundKey[][] keysByPlan) {
            this.byPlan = byPlan;
            this.keysByPlan = keysByPlan;
            boolean none = true;
            for (RateLimitRequest request : byPlan) {
                none &= request == null;
            }
            this.empty = none;
        }
    }
}
