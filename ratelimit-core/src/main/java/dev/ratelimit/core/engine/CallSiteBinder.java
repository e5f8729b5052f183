package dev.ratelimit.core.engine;

import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.RateLimitMode;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.config.LimitValues;
import dev.ratelimit.core.config.Plan;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.config.RateLimitSettings.Effective;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.LimitRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One call site in one configuration: per plan, the request the store is asked (overrides, modes and plans applied,
 * the limits that are off left out) and its bound keys. Holds the call site's limits to what only the configuration
 * can make invalid: a cost above an overridden limit, a wait on a resource method.
 *
 * <p>Not thread-safe: the binder calls it holding its own lock.
 */
final class CallSiteBinder {

    private final CountBindings counts;

    CallSiteBinder(CountBindings counts) {
        this.counts = counts;
    }

    /**
     * What the store is asked for one call site in one configuration, per plan. Binds each (name, plan) into
     * {@code keys} the first time this configuration meets it.
     */
    LiveLimits.Site bind(RateLimitSettings settings, PlanIndex plans, List<LimitDeclaration> declaredLimits,
                         RateLimitScope scope, BoundLimits.Use use, boolean oncePerRequest, String where,
                         Map<String, BoundKey> keys) {
        List<LimitDeclaration> limits = withGlobal(settings, declaredLimits, scope);
        long[] maxWaitNanos = new long[limits.size()];
        RateLimitPer[] per = new RateLimitPer[limits.size()];
        for (int i = 0; i < limits.size(); i++) {
            LimitDeclaration declared = limits.get(i);
            LimitValues configured = settings.limit(declared.name());
            long maxWait = use != BoundLimits.Use.CALL_SITE ? 0 // the programmatic API never waits
                    : configured.maxWaitMillis() != null ? configured.maxWaitMillis() : declared.maxWaitMillis();
            if (oncePerRequest && maxWait > 0) {
                throw new InvalidRateLimitException(origin(declared) + " on " + where + ": "
                        + LimitRules.resourceMethodWaits(declared.name(), configured.maxWaitMillis() != null
                        ? RateLimitSettings.LIMITS + declared.name() + "." + RateLimitSettings.MAX_WAIT_MILLIS
                        : LimitDeclaration.MAX_WAIT_MILLIS, maxWait));
            }
            maxWaitNanos[i] = TimeUnit.MILLISECONDS.toNanos(maxWait);
            per[i] = per(settings, declared);
        }
        RateLimitRequest[] byPlan = new RateLimitRequest[plans.size()];
        BoundKey[][] keysByPlan = new BoundKey[plans.size()][];
        for (int p = 0; p < plans.size() && settings.enabled(); p++) {
            Plan plan = plans.get(p);
            RateLimitRequest.Builder request = RateLimitRequest.builder();
            ArrayList<BoundKey> bound = new ArrayList<>(limits.size());
            for (int i = 0; i < limits.size(); i++) {
                LimitDeclaration declared = limits.get(i);
                Effective effective = settings.effective(declared.policy(), plan);
                if (effective.mode() == RateLimitMode.OFF) {
                    continue;
                }
                RateLimitPolicy policy = effective.policy();
                if (use == BoundLimits.Use.CALL_SITE) {
                    String costError = LimitRules.costError(declared.cost(), policy.permitLimit(),
                            (plan == null ? "" : " for the plan \"" + plan.name() + "\"") + ", after configuration");
                    if (costError != null) {
                        throw new InvalidRateLimitException(origin(declared) + " on " + where + ": " + costError);
                    }
                }
                BoundKey key = counts.key(settings, keys, policy, plan, effective.mode(), where, per[i]);
                Kind kind = use == BoundLimits.Use.CHARGE ? Kind.CHARGE
                        : effective.mode() == RateLimitMode.SHADOW ? Kind.SHADOW : Kind.ACQUIRE;
                long maxWait = kind == Kind.ACQUIRE ? maxWaitNanos[i] : 0; // a shadow limit never holds a call back
                if (maxWait > 0) {
                    key.mayWait(counts.waitTimer(policy.name()));
                }
                request.add(key.handle, key.key, policy, use == BoundLimits.Use.CALL_SITE ? declared.cost() : 1, kind,
                        maxWait).tag(key.tag);
                bound.add(key);
            }
            if (!bound.isEmpty()) {
                byPlan[p] = request.build();
                keysByPlan[p] = bound.toArray(new BoundKey[0]);
            }
        }
        return new LiveLimits.Site(byPlan, keysByPlan);
    }

    /** How messages name what declared a limit: the annotation, or the configuration's global limit. */
    private static String origin(LimitDeclaration declared) {
        return declared.declaredOn() == DeclaredOn.GLOBAL ? LimitDeclaration.GLOBAL_PLACE : "@RateLimit";
    }

    /** Whose count a declared limit spends from in {@code settings}: {@code ratelimit.limits.<name>.per} wins. */
    static RateLimitPer per(RateLimitSettings settings, LimitDeclaration declared) {
        RateLimitPer configured = settings.limit(declared.name()).per();
        return configured != null ? configured : declared.per();
    }

    /**
     * A resource method's limits of one scope with the global limit of {@code settings} in first place (when set,
     * and of that scope) instead of the one it was resolved with; other call sites' limits as resolved.
     */
    private static List<LimitDeclaration> withGlobal(RateLimitSettings settings, List<LimitDeclaration> limits,
                                                     RateLimitScope scope) {
        if (scope == null) {
            return limits;
        }
        List<LimitDeclaration> all = new ArrayList<>(limits.size() + 1);
        if (settings.global() != null && settings.globalScope() == scope) {
            all.add(LimitDeclaration.global(settings.global(), scope));
        }
        for (LimitDeclaration declared : limits) {
            if (declared.declaredOn() != DeclaredOn.GLOBAL) {
                all.add(declared);
            }
        }
        return all;
    }
}
