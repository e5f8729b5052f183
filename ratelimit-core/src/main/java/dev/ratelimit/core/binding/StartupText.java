package dev.ratelimit.core.binding;

import dev.ratelimit.core.RateLimitMode;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.address.PartitionSource;
import dev.ratelimit.core.config.LimitValues;
import dev.ratelimit.core.config.Plan;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.config.RateLimitSettings.Effective;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.guard.GuardedStore;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;

/** What the start-up line says of the engine and of bound limits, with the values in force. Stateless. */
final class StartupText {

    private StartupText() {
    }

    /** The store, the policy around it, the mode, the partition header and the plans. */
    static String summary(GuardedStore store, RateLimitSettings settings, PlanIndex plans) {
        StringJoiner planList = new StringJoiner(", ");
        for (int p = 1; p < plans.size(); p++) {
            Plan plan = plans.get(p);
            planList.add(plan.name() + (plan.role().equals(plan.name()) ? "" : " (role " + plan.role() + ")"));
        }
        return "store " + store + " (" + store.policy() + "); mode " + settings.mode().name().toLowerCase(Locale.ROOT)
                + "; partition header " + (settings.partitionHeader() == null ? "(none)" : settings.partitionHeader())
                + "; partition by " + String.join(", ", settings.partitionBy().stream().map(PartitionSource::key).toList())
                + "; " + settings.clientAddresses().describe()
                + "; plans " + (plans.size() == 1 ? "(none)" : planList);
    }

    /**
     * The effective values, modes and plans of declared limits in {@code settings}: {@code ["default" 3/60s (gold:
     * 10/60s)]}.
     */
    static String describe(RateLimitSettings settings, PlanIndex plans, List<LimitDeclaration> limits) {
        StringJoiner all = new StringJoiner("; ", "[", "]");
        for (LimitDeclaration declared : limits) {
            Effective none = settings.effective(declared.policy(), null);
            StringBuilder s = new StringBuilder(none.policy().toString());
            if (declared.cost() != 1) {
                s.append(" cost ").append(declared.cost());
            }
            LimitValues configured = settings.limit(declared.name());
            long maxWait = configured.maxWaitMillis() != null ? configured.maxWaitMillis() : declared.maxWaitMillis();
            if (maxWait > 0) {
                s.append(" wait ").append(maxWait).append(" ms");
            }
            if (CallSiteBinder.per(settings, declared) == RateLimitPer.APPLICATION) {
                s.append(" per application");
            }
            if (none.mode() != RateLimitMode.ENFORCE) {
                s.append(' ').append(none.mode().name().toLowerCase(Locale.ROOT));
            }
            StringJoiner byPlan = new StringJoiner(", ", " (", ")");
            byPlan.setEmptyValue("");
            for (int p = 1; p < plans.size(); p++) {
                Effective e = settings.effective(declared.policy(), plans.get(p));
                if (!e.policy().equals(none.policy()) || e.mode() != none.mode()) {
                    byPlan.add(plans.get(p).name() + ": " + (e.mode() == RateLimitMode.OFF ? "off"
                            : e.policy().permitLimit() + "/" + e.policy().windowSeconds() + "s"
                            + (e.policy().algorithm() == none.policy().algorithm() ? "" : " " + e.policy().algorithm())
                            + (e.mode() == RateLimitMode.ENFORCE ? "" : " " + e.mode().name().toLowerCase(Locale.ROOT))));
                }
            }
            all.add(s.append(byPlan));
        }
        return all.toString();
    }
}
