package dev.ratelimit.core.engine;

import dev.ratelimit.core.FailureStatuses;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPlanResolver;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.config.RateLimitSettings;
import java.util.Map;

/**
 * Live values: one configuration as every call site is bound in it, immutable. The binder publishes a
 * new one (one volatile write) when the configuration changes or a call site is bound; a request reads the
 * current one once, when its ledger is made ({@link RequestLedger}), and decides all its limits in it: one
 * volatile read per request, and no request sees half of a change.
 *
 * <p>{@code sites[i]} is the call site of {@link BoundLimits#index} {@code i}: per plan, what the store is asked and
 * the bound keys, in one part or a few ({@link Part}).
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

    /** True when counts are kept per plan (plans exist), so a caller's plan is needed before deciding. */
    boolean countsPerPlan() {
        return plans.size() > 1;
    }

    /**
     * One call site in one configuration: per plan (index 0: no plan) the first of its parts, or null when no limit
     * applies.
     */
    static final class Site {
        final Part[] byPlan;
        final boolean empty;

        Site(Part[] byPlan) {
            this.byPlan = byPlan;
            boolean none = true;
            for (Part part : byPlan) {
                none &= part == null;
            }
            this.empty = none;
        }
    }

    /**
     * The limits of a call site that one store call decides, for the callers of one plan: those that count in the same
     * partition, and count the same things. Most call sites have one part: limits per caller (or per application),
     * counting every call. Another partition ({@code per = ADDRESS}, {@code per = ARGUMENT}), or limits that count only
     * failures (whose success gives back that part's decision alone), make another part, decided after the one before
     * it allowed the call. Immutable.
     */
    static final class Part {
        /** What the store is asked. */
        final RateLimitRequest request;
        /** The bound keys of its limits, in the request's order. */
        final BoundKey[] keys;
        /**
         * Which partition it counts in: {@code CALLER} the ledger's (a key per application maps it to {@code application}
         * itself), {@code ADDRESS} the caller's client address, {@code ARGUMENT} the digest of the call's key.
         */
        final RateLimitPer per;
        /** The statuses that are failures when its limits count only failures; null when they count every call. */
        final FailureStatuses failuresOnly;
        /**
         * True for a resource method's limits: the response's status tells a success (which gives back a part that
         * counts only failures); else the method's outcome does (a bean method: a return without an exception).
         */
        final boolean byStatus;
        /** The call site's next part, decided once this one allowed the call; null for the last. */
        final Part next;

        Part(RateLimitRequest request, BoundKey[] keys, RateLimitPer per, FailureStatuses failuresOnly, boolean byStatus,
             Part next) {
            this.request = request;
            this.keys = keys;
            this.per = per;
            this.failuresOnly = failuresOnly;
            this.byStatus = byStatus;
            this.next = next;
        }
    }
}
