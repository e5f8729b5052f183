package dev.ratelimit.core.binding;

import dev.ratelimit.core.FailureStatuses;
import dev.ratelimit.core.RateLimitCaller;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPlanResolver;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.config.Plan;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.guard.OutageLog;
import dev.ratelimit.core.log.LogText;
import dev.ratelimit.core.log.RateLimitedLog;
import java.util.Map;

/**
 * Live values: one configuration as every call site is bound in it, immutable. The binder publishes a
 * new one (one volatile write) when the configuration changes or a call site is bound; a request reads the
 * current one once, when its record is made ({@code dev.ratelimit.core.engine.RequestLedger}), and decides all its
 * limits in it: one volatile read per request, and no request sees half of a change.
 *
 * <p>{@code sites[i]} is the call site of {@link BoundLimits#index} {@code i}: per plan, what the store is asked and
 * the bound keys, in one part or a few ({@link Part}). The library's internals, public for the request path
 * ({@code dev.ratelimit.core.engine}) and the admin API: not an API.
 */
public final class LiveLimits {

    public final long generation;
    public final RateLimitSettings settings;
    public final PlanIndex plans;
    /** Who tells a caller's plan: the application's own resolver, or the default on this configuration's plans. */
    private final RateLimitPlanResolver planResolver;
    /** Where a resolver's failures and unknown answers are logged, at most once a minute (shared by configurations). */
    private final RateLimitedLog planFailures;
    public final Site[] sites;
    /** Every (name, plan) bound, by {@code name} or {@code name/plan}. */
    public final Map<String, BoundKey> keys;

    LiveLimits(long generation, RateLimitSettings settings, PlanIndex plans, RateLimitPlanResolver planResolver,
               RateLimitedLog planFailures, Site[] sites, Map<String, BoundKey> keys) {
        this.generation = generation;
        this.settings = settings;
        this.plans = plans;
        this.planResolver = planResolver;
        this.planFailures = planFailures;
        this.sites = sites;
        this.keys = keys;
    }

    /** The same configuration with one more call site (the binder's lock held). */
    LiveLimits with(Site site, Map<String, BoundKey> keys) {
        Site[] more = java.util.Arrays.copyOf(sites, sites.length + 1);
        more[sites.length] = site;
        return new LiveLimits(generation, settings, plans, planResolver, planFailures, more, keys);
    }

    /** True when counts are kept per plan (plans exist), so a caller's plan is needed before deciding. */
    public boolean countsPerPlan() {
        return plans.size() > 1;
    }

    /**
     * The plan index of a caller (0: none) in this configuration's plans: the resolver's answer, one call. A resolver
     * that fails or names a plan this configuration does not list gives no plan (logged at most once a minute).
     */
    public int planOf(RateLimitCaller caller) {
        if (plans.size() == 1 || caller == null) {
            return 0;
        }
        String name;
        try {
            name = planResolver.plan(caller);
        } catch (RuntimeException e) {
            planFailures.occurred(n -> "ratelimit: the plan resolver " + planResolver + " failed ("
                    + OutageLog.describe(e) + "; " + n + (n == 1 ? " failure" : " failures")
                    + " since the last such line); those callers get no plan", e);
            return 0;
        }
        if (name == null) {
            return 0;
        }
        Plan plan = plans.named(name);
        if (plan == null) {
            planFailures.occurred(n -> "ratelimit: the plan resolver " + planResolver + " answered " + LogText.quoted(name)
                    + ", which " + RateLimitSettings.PLANS + " does not list (" + n + (n == 1 ? " such answer" : " such answers")
                    + " since the last such line); those callers get no plan", null);
            return 0;
        }
        return plan.index();
    }

    /** The index in this configuration of the plan at {@code index} in {@code from} (-1: gone). */
    public int planIndexOf(LiveLimits from, int index) {
        if (plans == from.plans || index == 0) {
            return index;
        }
        Plan plan = plans.named(from.plans.name(index));
        return plan == null ? -1 : plan.index();
    }

    /**
     * The bound key of a (name, plan), or null when no call site bound it: a name whose counts plans do not split
     * (per application, per address, per argument) is bound once, for every plan.
     *
     * @param plan null for callers in no plan
     */
    public BoundKey keyOf(String name, String plan) {
        BoundKey key = keys.get(plan == null ? name : name + '/' + plan);
        if (key == null && plan != null) {
            BoundKey shared = keys.get(name);
            key = shared != null && CountBindings.perClient(shared.key.per()) ? shared : null; // plans do not split it
        }
        return key;
    }

    /**
     * One call site in one configuration: per plan (index 0: no plan) the first of its parts, or null when no limit
     * applies.
     */
    public static final class Site {
        public final Part[] byPlan;
        public final boolean empty;

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
    public static final class Part {
        /** What the store is asked. */
        public final RateLimitRequest request;
        /** The bound keys of its limits, in the request's order. */
        public final BoundKey[] keys;
        /**
         * Which partition it counts in: {@code CALLER} the request's (a key per application maps it to
         * {@code application} itself), {@code ADDRESS} the caller's client address, {@code ARGUMENT} the digest of the
         * call's key. {@code dev.ratelimit.core.engine.Partitions} finds it.
         */
        public final RateLimitPer per;
        /** The statuses that are failures when its limits count only failures; null when they count every call. */
        public final FailureStatuses failuresOnly;
        /**
         * True for a resource method's limits: the response's status tells a success (which gives back a part that
         * counts only failures); else the method's outcome does (a bean method: a return without an exception).
         */
        public final boolean byStatus;
        /** The call site's next part, decided once this one allowed the call; null for the last. */
        public final Part next;

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
