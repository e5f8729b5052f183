package dev.ratelimit.core.config;

import static dev.ratelimit.core.config.RateLimitSettings.ALGORITHM;
import static dev.ratelimit.core.config.RateLimitSettings.FAILURES_ONLY;
import static dev.ratelimit.core.config.RateLimitSettings.FAILURE_STATUSES;
import static dev.ratelimit.core.config.RateLimitSettings.LIMITS;
import static dev.ratelimit.core.config.RateLimitSettings.MAX_WAIT_MILLIS;
import static dev.ratelimit.core.config.RateLimitSettings.MODE_PROPERTY;
import static dev.ratelimit.core.config.RateLimitSettings.PER;
import static dev.ratelimit.core.config.RateLimitSettings.PERMIT_LIMIT;
import static dev.ratelimit.core.config.RateLimitSettings.PLANS;
import static dev.ratelimit.core.config.RateLimitSettings.SLICES;
import static dev.ratelimit.core.config.RateLimitSettings.WINDOW_SECONDS;

import dev.ratelimit.core.FailureStatuses;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitMode;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.config.RateLimitSettings.Effective;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The values configuration gives limits by name: {@code ratelimit.limits.<name>.*} for every caller, and
 * {@code ratelimit.plans.<plan>.limits.<name>.*} for the callers of one plan, over what a declaration says. Limit
 * names are looked up by name, so that every source resolves them, environment variables included; each name's
 * values are read and validated once, then kept. Thread-safe.
 */
final class LimitOverrides {

    /** What a plan may change of a limit. */
    static final List<String> PLAN_LIMIT_PROPERTIES = List.of(PERMIT_LIMIT, WINDOW_SECONDS, ALGORITHM, MODE_PROPERTY);
    /**
     * What {@code ratelimit.limits.<name>.*} may change: a plan's, and whose count, how long a call waits, and whether
     * only failures count.
     */
    static final List<String> LIMIT_PROPERTIES = List.of(PERMIT_LIMIT, WINDOW_SECONDS, ALGORITHM, MODE_PROPERTY,
            MAX_WAIT_MILLIS, PER, FAILURES_ONLY, FAILURE_STATUSES, SLICES);

    private final SettingsReader read;
    /** {@code ratelimit.mode}: the mode of a limit that configuration gives none. */
    private final RateLimitMode mode;
    private final Map<String, LimitValues> limits = new ConcurrentHashMap<>();
    private final Map<String, LimitValues> planLimits = new ConcurrentHashMap<>();
    /** {@code ratelimit.limits.<name>.slices} by name; {@link Optional#empty()} where unset. */
    private final Map<String, Optional<Boolean>> slices = new ConcurrentHashMap<>();

    LimitOverrides(SettingsReader read, RateLimitMode mode) {
        this.read = read;
        this.mode = mode;
    }

    /**
     * Validates the values of every limit and plan key the source lists, now (the rest are validated when a limit
     * that uses them deploys).
     */
    void validateListed(List<Plan> plans) {
        for (String key : read.keys()) {
            if (key.startsWith(LIMITS)) {
                String limit = limitName(key.substring(LIMITS.length()), LIMIT_PROPERTIES);
                if (limit != null) {
                    limit(limit);
                    slices(limit);
                }
            }
        }
        for (Plan plan : plans) {
            String prefix = PLANS + "." + plan.name() + ".limits.";
            for (String key : read.keys()) {
                if (key.startsWith(prefix)) {
                    String limit = limitName(key.substring(prefix.length()), PLAN_LIMIT_PROPERTIES);
                    if (limit != null) {
                        plan(plan, limit);
                    }
                }
            }
        }
    }

    /** {@link RateLimitSettings#limit}. */
    LimitValues limit(String name) {
        return limits.computeIfAbsent(name, n -> values(LIMITS + n + ".", true));
    }

    /** {@code ratelimit.limits.<name>.slices}, or null where unset. */
    Boolean slices(String name) {
        return slices.computeIfAbsent(name, n -> {
            String key = LIMITS + n + "." + SLICES;
            return read.text(key) == null ? Optional.empty() : Optional.of(read.bool(key, false));
        }).orElse(null);
    }

    /** {@link RateLimitSettings#plan}. */
    LimitValues plan(Plan plan, String name) {
        return planLimits.computeIfAbsent(plan.name() + '/' + name,
                k -> values(PLANS + "." + plan.name() + ".limits." + name + ".", false));
    }

    /** {@link RateLimitSettings#effective}. */
    Effective effective(RateLimitPolicy declared, Plan plan) {
        LimitValues values = limit(declared.name());
        RateLimitPolicy policy = apply(declared, values);
        RateLimitMode limitMode = values.mode() != null ? values.mode() : mode;
        if (plan != null) {
            LimitValues planValues = plan(plan, declared.name());
            policy = apply(policy, planValues);
            if (planValues.mode() != null) {
                limitMode = planValues.mode();
            }
        }
        return new Effective(policy, limitMode);
    }

    /** {@link RateLimitSettings#configuredLimits}. */
    Set<String> configuredLimits() {
        Set<String> names = new TreeSet<>();
        for (String key : read.keys()) {
            if (key.startsWith(LIMITS)) {
                String name = limitName(key.substring(LIMITS.length()), LIMIT_PROPERTIES);
                if (name != null && limit(name).declaresALimit()) {
                    names.add(name);
                }
            }
        }
        return names;
    }

    /** {@link RateLimitSettings#configuredLimit}. */
    RateLimitPolicy configuredLimit(String name) {
        LimitValues values = limit(name);
        if (!values.declaresALimit()) {
            return null;
        }
        return new RateLimitPolicy(name, values.permitLimit(), values.windowSeconds(),
                values.algorithm() == null ? RateLimitAlgorithm.SLIDING_WINDOW : values.algorithm());
    }

    /** The name in {@code <name>.<property>}, or null when the property is not one of {@code properties}. */
    static String limitName(String nameAndProperty, List<String> properties) {
        for (String property : properties) {
            if (nameAndProperty.endsWith("." + property) && nameAndProperty.length() > property.length() + 1) {
                return nameAndProperty.substring(0, nameAndProperty.length() - property.length() - 1);
            }
        }
        return null;
    }

    private static RateLimitPolicy apply(RateLimitPolicy policy, LimitValues values) {
        if (!values.changesSize()) {
            return policy;
        }
        return policy.with(values.permitLimit() != null ? values.permitLimit() : policy.permitLimit(),
                values.windowSeconds() != null ? values.windowSeconds() : policy.windowSeconds(),
                values.algorithm() != null ? values.algorithm() : policy.algorithm());
    }

    private LimitValues values(String prefix, boolean wholeLimit) {
        Integer permitLimit = read.text(prefix + PERMIT_LIMIT) == null ? null
                : read.integer(prefix + PERMIT_LIMIT, 0, 1, Integer.MAX_VALUE);
        Integer window = read.text(prefix + WINDOW_SECONDS) == null ? null
                : read.integer(prefix + WINDOW_SECONDS, 0, 1, RateLimitPolicy.MAX_WINDOW_SECONDS);
        RateLimitAlgorithm algorithm = read.algorithm(prefix + ALGORITHM, null);
        RateLimitMode limitMode = read.mode(prefix + MODE_PROPERTY, null);
        Long maxWait = !wholeLimit || read.text(prefix + MAX_WAIT_MILLIS) == null ? null
                : (long) read.integer(prefix + MAX_WAIT_MILLIS, 0, 0, Integer.MAX_VALUE);
        RateLimitPer per = wholeLimit ? read.per(prefix + PER) : null;
        Boolean failuresOnly = !wholeLimit || read.text(prefix + FAILURES_ONLY) == null ? null
                : read.bool(prefix + FAILURES_ONLY, false);
        FailureStatuses statuses = wholeLimit ? read.failureStatuses(prefix + FAILURE_STATUSES) : null;
        LimitValues values = new LimitValues(permitLimit, window, algorithm, limitMode, maxWait, per, failuresOnly,
                statuses);
        return values.isEmpty() ? LimitValues.NONE : values;
    }
}
