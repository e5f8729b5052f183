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
 * The checks that span methods: limits that share a name spend from one count, so they must agree on its algorithm,
 * on whose count it is ({@code per}) and on what it counts ({@code failuresOnly}, the failure statuses); differently
 * sized ones are allowed, and warned about (a count is sized by
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
     * (an algorithm, a {@code per} or what they count that disagrees), each naming both methods. A limit with a problem of its own
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
            Counting counting;
            try {
                counting = Counting.of(settings, limit);
            } catch (IllegalArgumentException e) {
                continue; // reported as the declaration's own problem
            }
            RateLimitPer per = counting.per();
            First earlier = first.putIfAbsent(limit.name(), new First(method.where(), policy.algorithm(), counting));
            if (earlier == null) {
                continue;
            }
            if (earlier.algorithm != policy.algorithm()) {
                problems.add(algorithmsDiffer(limit.name(), earlier.where, earlier.algorithm, method.where(),
                        policy.algorithm(), null));
            }
            if (earlier.counting.per() != per) {
                problems.add(perDiffers(limit.name(), earlier.where, earlier.counting.per(), method.where(), per));
            } else if (!earlier.counting.equals(counting)) {
                problems.add(countingDiffers(limit.name(), earlier.where, earlier.counting, method.where(), counting));
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

    /** Two limits of one name that count different things: every call, or only failures (of different statuses). */
    public static String countingDiffers(String name, String firstWhere, Counting first, String where, Counting counting) {
        return "ratelimit: the limit name \"" + name + "\" counts " + what(first) + " on " + firstWhere + " and "
                + what(counting) + " on " + where + ": limits that share a name share a count, so they must agree on "
                + "what it counts (failuresOnly, failure-statuses)";
    }

    private static String what(Counting counting) {
        return counting.failuresOnly() ? "only failures (" + counting.statuses() + ")" : "every call";
    }

    /** The warning for two limits of one name with different sizes: allowed, but a count is sized by its first call. */
    public static String sizesDiffer(String name, String firstWhere, RateLimitPolicy firstPolicy, String where,
                                     RateLimitPolicy policy) {
        return "ratelimit: the limit name \"" + name + "\" is shared by " + firstWhere + " (" + firstPolicy.permitLimit()
                + "/" + firstPolicy.windowSeconds() + "s) and " + where + " (" + policy.permitLimit() + "/"
                + policy.windowSeconds() + "s); they spend from one count per partition, sized by whichever request "
                + "creates it";
    }

    private record First(String where, RateLimitAlgorithm algorithm, Counting counting) {
    }
}
