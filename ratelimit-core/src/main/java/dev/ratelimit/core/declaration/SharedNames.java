package dev.ratelimit.core.declaration;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.config.RateLimitSettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The checks that span methods: limits that share a name spend from one count, so they must agree on its algorithm
 * and on whose count it is ({@code per}); differently sized ones are allowed, and warned about (a count is sized by
 * whichever call creates it). Each message is written here once, for a build that sees every method
 * ({@link #add}) and for the engine's binder, which holds the same rules to the values in force once the
 * configuration applies. Not thread-safe; one per check of an application.
 */
public final class SharedNames {

    private final RateLimitSettings settings;
    /** The first limit of each name met, with the method it covers. */
    private final Map<String, First> first = new HashMap<>();

    /**
     * @param settings the configuration whose {@code ratelimit.limits.<name>.algorithm} and {@code .per} apply to the
     *                 declarations ({@code RateLimitSettings.of(Map.of())}: the declarations as they are)
     */
    public SharedNames(RateLimitSettings settings) {
        this.settings = settings;
    }

    /**
     * Notes the limits of one method; returns what is wrong with the names they share with the methods noted before
     * (an algorithm or a {@code per} that disagrees), each naming both methods. A limit with a problem of its own
     * ({@link ResolvedLimits#problems}) is left out.
     */
    public List<String> add(ResolvedLimits method) {
        List<String> problems = new ArrayList<>();
        for (LimitDeclaration limit : method.limits()) {
            RateLimitPolicy policy;
            try {
                policy = settings.effective(limit.policy(), null).policy();
            } catch (IllegalArgumentException e) {
                continue; // reported as the declaration's own problem
            }
            RateLimitPer configured = settings.limit(limit.name()).per();
            RateLimitPer per = configured != null ? configured : limit.per();
            First earlier = first.putIfAbsent(limit.name(), new First(method.where(), policy.algorithm(), per));
            if (earlier == null) {
                continue;
            }
            if (earlier.algorithm != policy.algorithm()) {
                problems.add(algorithmsDiffer(limit.name(), earlier.where, earlier.algorithm, method.where(),
                        policy.algorithm(), null));
            }
            if (earlier.per != per) {
                problems.add(perDiffers(limit.name(), earlier.where, earlier.per, method.where(), per));
            }
        }
        return problems;
    }

    /**
     * Two limits of one name with different algorithms.
     *
     * @param plan the plan whose values they are, or null for callers in no plan
     */
    public static String algorithmsDiffer(String name, String firstWhere, RateLimitAlgorithm firstAlgorithm, String where,
                                          RateLimitAlgorithm algorithm, String plan) {
        return "ratelimit: the limit name \"" + name + "\" has the algorithm " + firstAlgorithm + " on " + firstWhere
                + " and " + algorithm + " on " + where + (plan == null ? "" : " (plan \"" + plan + "\")")
                + ": limits that share a name share a count, so they must share an algorithm";
    }

    /** Two limits of one name that count for different callers. */
    public static String perDiffers(String name, String firstWhere, RateLimitPer firstPer, String where, RateLimitPer per) {
        return "ratelimit: the limit name \"" + name + "\" counts per " + firstPer.name().toLowerCase(Locale.ROOT) + " on "
                + firstWhere + " and per " + per.name().toLowerCase(Locale.ROOT) + " on " + where
                + ": limits that share a name share a count, so they must agree on whose it is (per)";
    }

    /** The warning for two limits of one name with different sizes: allowed, but a count is sized by its first call. */
    public static String sizesDiffer(String name, String firstWhere, RateLimitPolicy firstPolicy, String where,
                                     RateLimitPolicy policy) {
        return "ratelimit: the limit name \"" + name + "\" is shared by " + firstWhere + " (" + firstPolicy.permitLimit()
                + "/" + firstPolicy.windowSeconds() + "s) and " + where + " (" + policy.permitLimit() + "/"
                + policy.windowSeconds() + "s); they spend from one count per partition, sized by whichever request "
                + "creates it";
    }

    private record First(String where, RateLimitAlgorithm algorithm, RateLimitPer per) {
    }
}
