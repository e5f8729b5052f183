package dev.ratelimit.core.config;

import static dev.ratelimit.core.config.RateLimitSettings.LIMITS;
import static dev.ratelimit.core.config.RateLimitSettings.PERMIT_LIMIT;
import static dev.ratelimit.core.config.RateLimitSettings.PLANS;
import static dev.ratelimit.core.config.RateLimitSettings.WINDOW_SECONDS;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The warnings for listed {@code ratelimit.*} keys that name nothing (a typo must not pass silently): a limit no
 * declaration uses (unless configuration declares it whole for the programmatic API), a limit name that differs from a
 * declared one only in case (names are case-sensitive), a plan outside {@code ratelimit.plans}, a property that does
 * not exist; and an environment variable {@code RATELIMIT_...} that stands for no such key (docs/configuration.md,
 * "Mistakes"). A key that the settings read is a setting ({@link SettingsReader#wasRead}); so is every
 * key of the reference ({@link KeyCatalogue}), which lists what other modules read too (the stores, through their
 * {@link KeyProvider}, live values, the admin API): a module's key is known by being catalogued.
 */
final class UnknownKeys {

    /** How an environment variable that sets a {@code ratelimit.*} key begins. */
    static final String ENVIRONMENT_PREFIX = "RATELIMIT_";

    private UnknownKeys() {
    }

    /**
     * One warning per listed key that names nothing, naming it, in key order.
     *
     * @param declared every limit name the application declares (annotations and the global limit)
     */
    static List<String> of(SettingsReader read, LimitOverrides overrides, List<Plan> plans, Set<String> declared) {
        Set<String> catalogued = read.catalogue().fixedNames();
        Set<String> known = new LinkedHashSet<>(declared);
        known.addAll(overrides.configuredLimits());
        Set<String> keys = new TreeSet<>();
        for (String key : read.keys()) {
            keys.add(key);
        }
        // SmallRye Config lists a variable twice: as it is written, and lower case with dots for its underscores
        // (RATELIMIT_STORE_TIMEOUT_MILLIS: ratelimit.store.timeout.millis); the variable is judged, not that spelling
        Set<String> listedForVariables = new HashSet<>();
        for (String key : keys) {
            if (key.startsWith(ENVIRONMENT_PREFIX)) {
                listedForVariables.add(key.toLowerCase(Locale.ROOT).replace('_', '.'));
            }
        }
        List<String> warnings = new ArrayList<>();
        for (String key : keys) {
            if (listedForVariables.contains(key)) {
                continue;
            }
            if (key.startsWith(ENVIRONMENT_PREFIX)) {
                String warning = environmentWarning(key, read, catalogued, plans, known);
                if (warning != null) {
                    warnings.add(warning);
                }
                continue;
            }
            if (!key.startsWith("ratelimit.")) {
                continue;
            }
            if (key.startsWith(LIMITS)) {
                String name = LimitOverrides.limitName(key.substring(LIMITS.length()), LimitOverrides.LIMIT_PROPERTIES);
                if (name == null) {
                    warnings.add(key + " is not a setting: a limit takes " + String.join(", ", LimitOverrides.LIMIT_PROPERTIES));
                } else if (caseOnly(name, declared) != null) {
                    warnings.add(caseWarning(key, name, caseOnly(name, declared)));
                } else if (!known.contains(name)) {
                    warnings.add(key + " names the limit \"" + name + "\", which no @RateLimit, global limit or "
                            + "configuration declares (check the name; to declare it for the programmatic API, set both "
                            + LIMITS + name + "." + PERMIT_LIMIT + " and ." + WINDOW_SECONDS + ")");
                }
            } else if (key.startsWith(PLANS + ".")) {
                String warning = planKeyWarning(key, plans, known, declared);
                if (warning != null) {
                    warnings.add(warning);
                }
            } else if (!read.wasRead(key) && !catalogued.contains(key)) {
                warnings.add(key + " is not a ratelimit setting");
            }
        }
        return warnings;
    }

    /** The declared name that {@code name} differs from only in case, or null. */
    private static String caseOnly(String name, Set<String> declared) {
        if (declared.contains(name)) {
            return null;
        }
        for (String d : declared) {
            if (d.equalsIgnoreCase(name)) {
                return d;
            }
        }
        return null;
    }

    private static String caseWarning(String key, String name, String declaredName) {
        return key + " names the limit \"" + name + "\", which differs only in case from the declared limit \""
                + declaredName + "\": limit names are case-sensitive, so this key sets another limit than \""
                + declaredName + "\" (write the name as it is declared)";
    }

    /**
     * The environment variable spelling of a key, as MicroProfile Config finds it: every character other than a
     * letter or a digit becomes {@code _}, and letters are upper case ({@code ratelimit.limits.login-address.mode}:
     * {@code RATELIMIT_LIMITS_LOGIN_ADDRESS_MODE}).
     */
    static String environmentName(String key) {
        StringBuilder out = new StringBuilder(key.length());
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            out.append((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    ? Character.toUpperCase(c) : '_');
        }
        return out.toString();
    }

    /** The warning for an environment variable {@code RATELIMIT_...} that stands for no key, or null. */
    private static String environmentWarning(String variable, SettingsReader read, Set<String> catalogued,
                                             List<Plan> plans, Set<String> known) {
        for (String key : catalogued) {
            if (environmentName(key).equals(variable)) {
                return null;
            }
        }
        for (String key : read.readKeys()) {
            // a limit's or a plan's key is read for any name listed, declared or not: judged by its name below
            if (!key.startsWith(LIMITS) && !key.startsWith(PLANS + ".") && environmentName(key).equals(variable)) {
                return null;
            }
        }
        String limits = environmentName(LIMITS);
        if (variable.startsWith(limits)) {
            return limitVariableWarning(variable, variable.substring(limits.length()), LimitOverrides.LIMIT_PROPERTIES,
                    known, LIMITS + "<name>.");
        }
        String plansPrefix = environmentName(PLANS + ".");
        if (variable.startsWith(plansPrefix)) {
            String rest = variable.substring(plansPrefix.length());
            for (Plan plan : plans) {
                String planPrefix = environmentName(plan.name()) + "_";
                if (!rest.startsWith(planPrefix)) {
                    continue;
                }
                String after = rest.substring(planPrefix.length());
                if (after.equals("ROLE")) {
                    return null;
                }
                if (after.startsWith("LIMITS_")) {
                    String warning = limitVariableWarning(variable, after.substring("LIMITS_".length()),
                            LimitOverrides.PLAN_LIMIT_PROPERTIES, known, PLANS + "." + plan.name() + ".limits.<name>.");
                    if (warning == null) {
                        return null;
                    }
                }
            }
            return "the environment variable " + variable + " stands for no ratelimit setting: a plan's variables are "
                    + "RATELIMIT_PLANS_<PLAN>_ROLE and RATELIMIT_PLANS_<PLAN>_LIMITS_<NAME>_<PROPERTY>, with <PLAN> one of "
                    + PLANS + " (" + plans.stream().map(Plan::name).toList() + ")";
        }
        return "the environment variable " + variable + " stands for no ratelimit setting (the reference lists the keys "
                + "it may set, written in capitals with _ for every other character)";
    }

    /**
     * The warning for a variable {@code <prefix><NAME>_<PROPERTY>} whose {@code <NAME>} is no known limit's name as an
     * environment variable writes it, or null when it is one.
     */
    private static String limitVariableWarning(String variable, String nameAndProperty, List<String> properties,
                                               Set<String> known, String keyPattern) {
        String property = null;
        for (String p : properties) {
            String suffix = "_" + environmentName(p);
            if (nameAndProperty.endsWith(suffix) && nameAndProperty.length() > suffix.length()) {
                String name = nameAndProperty.substring(0, nameAndProperty.length() - suffix.length());
                for (String k : known) {
                    if (environmentName(k).equals(name)) {
                        return null;
                    }
                }
                if (property == null || p.length() > property.length()) {
                    property = p;
                }
            }
        }
        if (property == null) {
            return "the environment variable " + variable + " stands for no ratelimit setting: it would set "
                    + keyPattern + "<property>, and a limit takes " + String.join(", ", properties);
        }
        String name = nameAndProperty.substring(0, nameAndProperty.length() - environmentName(property).length() - 1);
        return "the environment variable " + variable + " names the limit " + name + " (as "
                + keyPattern.replace("<name>", name.toLowerCase(Locale.ROOT)) + property + "), which matches no declared "
                + "limit (" + String.join(", ", new TreeSet<>(known)) + "; in an environment variable a name is written "
                + "in capitals, with _ for every character other than a letter or a digit)";
    }

    private static String planKeyWarning(String key, List<Plan> plans, Set<String> known, Set<String> declared) {
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
            if (caseOnly(name, declared) != null) {
                return caseWarning(key, name, caseOnly(name, declared));
            }
            return known.contains(name) ? null : key + " names the limit \"" + name
                    + "\", which no @RateLimit, global limit or configuration declares";
        }
        return key + " is not a setting of the plan \"" + longest.name() + "\" (role, limits.<name>.*)";
    }
}
