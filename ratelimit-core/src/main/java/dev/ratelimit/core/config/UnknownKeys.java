package dev.ratelimit.core.config;

import static dev.ratelimit.core.config.RateLimitSettings.LIMITS;
import static dev.ratelimit.core.config.RateLimitSettings.PERMIT_LIMIT;
import static dev.ratelimit.core.config.RateLimitSettings.PLANS;
import static dev.ratelimit.core.config.RateLimitSettings.WINDOW_SECONDS;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The warnings for listed {@code ratelimit.*} keys that name nothing (a typo must not pass silently): a limit no
 * declaration uses (unless configuration declares it whole for the programmatic API), a plan outside
 * {@code ratelimit.plans}, a property that does not exist. A key that the settings read is a setting
 * ({@link SettingsReader#wasRead}); so is every key of the reference ({@link KeyCatalogue}), which lists what other
 * modules read too (the stores, live values, the admin API): a module's key is known by being catalogued.
 */
final class UnknownKeys {

    /** The reference's keys that a configuration sets as they are written. */
    private static final Set<String> CATALOGUED = KeyCatalogue.fixedNames();

    private UnknownKeys() {
    }

    /**
     * One warning per listed key that names nothing, naming it, in key order.
     *
     * @param declared every limit name the application declares (annotations and the global limit)
     */
    static List<String> of(SettingsReader read, LimitOverrides overrides, List<Plan> plans, Set<String> declared) {
        Set<String> known = new LinkedHashSet<>(declared);
        known.addAll(overrides.configuredLimits());
        Set<String> keys = new TreeSet<>();
        for (String key : read.keys()) {
            keys.add(key);
        }
        List<String> warnings = new ArrayList<>();
        for (String key : keys) {
            if (!key.startsWith("ratelimit.")) {
                continue;
            }
            if (key.startsWith(LIMITS)) {
                String name = LimitOverrides.limitName(key.substring(LIMITS.length()), LimitOverrides.LIMIT_PROPERTIES);
                if (name == null) {
                    warnings.add(key + " is not a setting: a limit takes " + String.join(", ", LimitOverrides.LIMIT_PROPERTIES));
                } else if (!known.contains(name)) {
                    warnings.add(key + " names the limit \"" + name + "\", which no @RateLimit, global limit or "
                            + "configuration declares (check the name; to declare it for the programmatic API, set both "
                            + LIMITS + name + "." + PERMIT_LIMIT + " and ." + WINDOW_SECONDS + ")");
                }
            } else if (key.startsWith(PLANS + ".")) {
                String warning = planKeyWarning(key, plans, known);
                if (warning != null) {
                    warnings.add(warning);
                }
            } else if (!read.wasRead(key) && !CATALOGUED.contains(key)) {
                warnings.add(key + " is not a ratelimit setting");
            }
        }
        return warnings;
    }

    private static String planKeyWarning(String key, List<Plan> plans, Set<String> known) {
        Plan longest = null;
        for (Plan plan : plans) {
            if (key.startsWith(PLANS + "." + plan.name() + ".")
                    && (longest == null || plan.name().length() > longest.name().length())) {
                longest = plan; // "gold.v2" before "gold": plan names may contain dots
            }
        }
        if (longest == null) {
            return key + " names a plan that " + PLANS + " does not list (" + plans.stream().map(Plan::name).toList() + ")";
        }
        String rest = key.substring((PLANS + "." + longest.name() + ".").length());
        if (rest.equals("role")) {
            return null;
        }
        if (rest.startsWith("limits.")) {
            String name = LimitOverrides.limitName(rest.substring("limits.".length()), LimitOverrides.PLAN_LIMIT_PROPERTIES);
            if (name == null) {
                return key + " is not a setting: a plan's limit takes "
                        + String.join(", ", LimitOverrides.PLAN_LIMIT_PROPERTIES);
            }
            return known.contains(name) ? null : key + " names the limit \"" + name
                    + "\", which no @RateLimit, global limit or configuration declares";
        }
        return key + " is not a setting of the plan \"" + longest.name() + "\" (role, limits.<name>.*)";
    }
}
