package dev.ratelimit.openapi.internal.document;

import dev.ratelimit.core.RateLimitMode;
import dev.ratelimit.core.config.Plan;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.config.RateLimitSettings.Effective;
import dev.ratelimit.core.declaration.Counting;
import dev.ratelimit.core.declaration.LimitDeclaration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A declared limit as the application enforces it: the declaration, then
 * {@code ratelimit.limits.<name>.*} and {@code ratelimit.mode} for callers in no plan, and the plans whose
 * {@code ratelimit.plans.<plan>.limits.<name>.*} change it, in the order of {@code ratelimit.plans}. The
 * same values the engine binds and the start-up line shows. Immutable.
 *
 * @param declared what the code declares (index), for its cost, scope and level
 * @param none     policy and mode for callers in no plan
 * @param plans    plan name to its policy and mode, for the plans whose values differ from {@code none}
 * @param counting whose count it spends from and what it counts, configuration applied
 */
public record EffectiveLimit(LimitDeclaration declared, Effective none, Map<String, Effective> plans,
                             Counting counting) {

    public EffectiveLimit {
        plans = Collections.unmodifiableMap(new LinkedHashMap<>(plans));
    }

    /**
     * The limits of an operation after configuration, in order; a limit that is off for every caller (in
     * no plan and in each plan) is left out, as the engine leaves it out.
     *
     * @throws dev.ratelimit.core.InvalidRateLimitException naming the key and the value when one is malformed
     */
    public static List<EffectiveLimit> of(List<LimitDeclaration> declared, RateLimitSettings settings) {
        List<EffectiveLimit> limits = new ArrayList<>(declared.size());
        for (LimitDeclaration limit : declared) {
            Effective none = settings.effective(limit.policy(), null);
            Map<String, Effective> plans = new LinkedHashMap<>();
            boolean applies = none.mode() != RateLimitMode.OFF;
            for (Plan plan : settings.plans()) {
                Effective e = settings.effective(limit.policy(), plan);
                if (!e.equals(none)) {
                    plans.put(plan.name(), e);
                }
                applies |= e.mode() != RateLimitMode.OFF;
            }
            if (applies) {
                limits.add(new EffectiveLimit(limit, none, plans, Counting.of(settings, limit)));
            }
        }
        return limits;
    }

    /** True when it counts anything but every request of each client: failures only, or in another partition. */
    public boolean countsOtherwise() {
        return counting.failuresOnly() || counting.per() != dev.ratelimit.core.RateLimitPer.CALLER;
    }

    /** True when it refuses some caller's requests: enforced in no plan or in one of the plans. */
    public boolean canRefuse() {
        if (none.mode() == RateLimitMode.ENFORCE) {
            return true;
        }
        for (Effective e : plans.values()) {
            if (e.mode() == RateLimitMode.ENFORCE) {
                return true;
            }
        }
        return false;
    }
}
