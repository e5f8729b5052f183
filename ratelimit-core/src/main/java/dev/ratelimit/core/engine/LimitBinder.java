package dev.ratelimit.core.engine;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.LimitRules;
import dev.ratelimit.core.RateLimitMode;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.address.PartitionSource;
import dev.ratelimit.core.config.LimitValues;
import dev.ratelimit.core.config.Plan;
import dev.ratelimit.core.config.RateLimitSettings.Effective;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Deployment: binds the limits of each call site once, before any request (configuration overrides, modes
 * and plans applied; each (name, plan) bound to the store and to its metric counters), validates what only
 * the configuration can make invalid (a cost above an overridden limit, one name with two algorithms), and
 * writes the start-up text. What it makes ({@link BoundLimits}, {@link NamedLimit}) is all the request path
 * ({@link RateLimitEngine}) needs: a call looks nothing up by name.
 *
 * <p>Thread-safe: every method that binds or reads what was bound holds {@code this}; {@code named} is read
 * without it first (made once per name, then only read).
 */
public final class LimitBinder {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit");

    private final RateLimitSettings settings;
    private final GuardedStore store;
    private final PlanIndex plans;
    private final RateLimitMetrics metrics;
    private final LongSupplier clock;
    /** Guarded by this: name or name/plan to its bound key. */
    private final Map<String, BoundKey> keys = new HashMap<>();
    /** Guarded by this: the first declaration of each name. */
    private final Map<String, Declaration> declarations = new LinkedHashMap<>();
    private final Set<String> sizeWarnings = new HashSet<>();
    private final Map<String, ShadowLog> shadowLogs = new HashMap<>();
    private final ConcurrentHashMap<String, NamedLimit> named = new ConcurrentHashMap<>();

    LimitBinder(RateLimitSettings settings, GuardedStore store, PlanIndex plans, RateLimitMetrics metrics,
                LongSupplier clock) {
        this.settings = settings;
        this.store = store;
        this.plans = plans;
        this.metrics = metrics;
        this.clock = clock;
    }

    /**
     * Binds the limits of one call site: applies {@code ratelimit.limits.*}, the modes and the plans, and binds
     * each (name, plan) to the store and the metrics. They are decided on every call of the call site: a bean
     * method's limits spend once per invocation, twice in a request that calls it twice.
     *
     * @param where  the call site, as messages name it
     * @param limits the declared limits in order (global, module, class, method); distinct names
     * @throws InvalidRateLimitException when a cost exceeds its limit after configuration, or limits sharing a
     *                                   name have different algorithms; the message names both
     */
    public BoundLimits bind(String where, List<DeclaredLimit> limits) {
        return bind(where, limits, false);
    }

    /**
     * {@link #bind}, for the limits of a request's resource method in one scope: decided at most once per
     * request, however often a container runs the filter that decides them (exactly once: SPEC 3).
     */
    public BoundLimits bindOncePerRequest(String where, List<DeclaredLimit> limits) {
        return bind(where, limits, true);
    }

    private synchronized BoundLimits bind(String where, List<DeclaredLimit> limits, boolean oncePerRequest) {
        RateLimitRequest[] byPlan = new RateLimitRequest[plans.size()];
        BoundKey[][] keysByPlan = new BoundKey[plans.size()][];
        if (!settings.enabled() || limits.isEmpty()) {
            for (DeclaredLimit declared : limits) {
                declarations.putIfAbsent(declared.policy().name(),
                        new Declaration(declared.policy(), declared.policy(), where, declared.per()));
            }
            return new BoundLimits(where, byPlan, keysByPlan, limits.isEmpty() ? "(none)" : "(ratelimit.enabled=false)",
                    oncePerRequest);
        }
        long[] maxWaitNanos = new long[limits.size()];
        RateLimitPer[] per = new RateLimitPer[limits.size()];
        for (int i = 0; i < limits.size(); i++) {
            DeclaredLimit declared = limits.get(i);
            LimitValues configured = settings.limit(declared.policy().name());
            long maxWait = configured.maxWaitMillis() != null ? configured.maxWaitMillis() : declared.maxWaitMillis();
            if (oncePerRequest && maxWait > 0) {
                throw new InvalidRateLimitException(declared.origin() + " on " + where + ": " + LimitRules.resourceMethodWaits(
                        declared.policy().name(), configured.maxWaitMillis() != null ? RateLimitSettings.LIMITS
                                + declared.policy().name() + "." + RateLimitSettings.MAX_WAIT_MILLIS : "maxWaitMillis", maxWait));
            }
            maxWaitNanos[i] = TimeUnit.MILLISECONDS.toNanos(maxWait);
            per[i] = configured.per() != null ? configured.per() : declared.per();
        }
        for (int p = 0; p < plans.size(); p++) {
            Plan plan = plans.get(p);
            RateLimitRequest.Builder request = RateLimitRequest.builder();
            ArrayList<BoundKey> bound = new ArrayList<>(limits.size());
            for (int i = 0; i < limits.size(); i++) {
                DeclaredLimit declared = limits.get(i);
                Effective effective = settings.effective(declared.policy(), plan);
                if (effective.mode() == RateLimitMode.OFF) {
                    continue;
                }
                RateLimitPolicy policy = effective.policy();
                String costError = LimitRules.costError(declared.cost(), policy.permitLimit(),
                        (plan == null ? "" : " for the plan \"" + plan.name() + "\"") + ", after configuration");
                if (costError != null) {
                    throw new InvalidRateLimitException(declared.origin() + " on " + where + ": " + costError);
                }
                BoundKey key = key(policy, plan, effective.mode(), where, per[i]);
                boolean shadow = effective.mode() == RateLimitMode.SHADOW;
                if (!shadow && maxWaitNanos[i] > 0) {
                    key.mayWait();
                }
                request.add(key.handle, key.key, policy, declared.cost(), shadow ? Kind.SHADOW : Kind.ACQUIRE,
                        shadow ? 0 : maxWaitNanos[i]); // a shadow limit never holds a call back
                bound.add(key);
            }
            if (!bound.isEmpty()) {
                byPlan[p] = request.build();
                keysByPlan[p] = bound.toArray(new BoundKey[0]);
            }
        }
        for (int i = 0; i < limits.size(); i++) {
            DeclaredLimit declared = limits.get(i);
            declare(where, declared.policy(), settings.effective(declared.policy(), null).policy(), per[i]);
        }
        return new BoundLimits(where, byPlan, keysByPlan, describe(limits), oncePerRequest);
    }

    /**
     * The limit the programmatic API spends from by name: declared by an {@code @RateLimit} (the first
     * declaration sizes it) or by configuration alone ({@code ratelimit.limits.<name>.permit-limit} and
     * {@code .window-seconds}, which win). Made on first use, then kept.
     *
     * @throws IllegalArgumentException naming the name when nothing declares it
     */
    public NamedLimit named(String name) {
        NamedLimit limit = named.get(name);
        if (limit != null) {
            return limit;
        }
        synchronized (this) {
            limit = named.get(name);
            if (limit != null) {
                return limit;
            }
            RateLimitPolicy policy = settings.configuredLimit(name);
            RateLimitPer per = settings.limit(name).per();
            if (policy == null) {
                Declaration declaration = declarations.get(name);
                if (declaration == null) {
                    throw new IllegalArgumentException("ratelimit: no limit is named \"" + name + "\": declare it with "
                            + "@RateLimit(name = \"" + name + "\", ...) or with " + RateLimitSettings.LIMITS + name + "."
                            + RateLimitSettings.PERMIT_LIMIT + " and ." + RateLimitSettings.WINDOW_SECONDS);
                }
                policy = declaration.declared;
                per = declaration.per;
            } else {
                per = per != null ? per : RateLimitPer.CALLER;
                declare("configuration (" + RateLimitSettings.LIMITS + name + ".*)", policy, policy, per);
            }
            RateLimitRequest[] acquire = new RateLimitRequest[plans.size()];
            RateLimitRequest[] charge = new RateLimitRequest[plans.size()];
            BoundKey[][] keysByPlan = new BoundKey[plans.size()][];
            for (int p = 0; p < plans.size() && settings.enabled(); p++) {
                Effective effective = settings.effective(policy, plans.get(p));
                if (effective.mode() == RateLimitMode.OFF) {
                    continue;
                }
                BoundKey key = key(effective.policy(), plans.get(p), effective.mode(), "the programmatic API", per);
                acquire[p] = RateLimitRequest.of(key.handle, key.key, effective.policy(), 1,
                        effective.mode() == RateLimitMode.SHADOW ? Kind.SHADOW : Kind.ACQUIRE);
                charge[p] = RateLimitRequest.of(key.handle, key.key, effective.policy(), 1, Kind.CHARGE);
                keysByPlan[p] = new BoundKey[] {key};
            }
            String where = "the programmatic API (\"" + name + "\")";
            String description = describe(List.of(new DeclaredLimit(policy, 1, where)));
            limit = new NamedLimit(name, new BoundLimits(where, acquire, keysByPlan, description, false),
                    new BoundLimits(where, charge, keysByPlan, description, false));
            named.put(name, limit);
            return limit;
        }
    }

    /** Warnings for configuration keys that name nothing bound so far (see {@link RateLimitSettings#unknownKeys}). */
    public synchronized List<String> unknownKeyWarnings() {
        return settings.unknownKeys(new TreeSet<>(declarations.keySet()));
    }

    /** The store, the policy around it, the mode, the partition header and the plans, for the start-up line. */
    public String summary() {
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
     * The effective values, modes and plans of declared limits, as the start-up line shows them:
     * {@code ["default" 3/60s (gold: 10/60s)]}.
     */
    public String describe(List<DeclaredLimit> limits) {
        StringJoiner all = new StringJoiner("; ", "[", "]");
        for (DeclaredLimit declared : limits) {
            Effective none = settings.effective(declared.policy(), null);
            StringBuilder s = new StringBuilder(none.policy().toString());
            if (declared.cost() != 1) {
                s.append(" cost ").append(declared.cost());
            }
            LimitValues configured = settings.limit(declared.policy().name());
            long maxWait = configured.maxWaitMillis() != null ? configured.maxWaitMillis() : declared.maxWaitMillis();
            if (maxWait > 0) {
                s.append(" wait ").append(maxWait).append(" ms");
            }
            if ((configured.per() != null ? configured.per() : declared.per()) == RateLimitPer.APPLICATION) {
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

    private BoundKey key(RateLimitPolicy policy, Plan plan, RateLimitMode mode, String where, RateLimitPer per) {
        String id = plan == null ? policy.name() : policy.name() + '/' + plan.name();
        BoundKey key = keys.get(id);
        if (key == null) {
            CountKey countKey = new CountKey(policy.name(), plan == null ? null : plan.name(), policy.algorithm(), per);
            ShadowLog shadow = shadowLogs.computeIfAbsent(policy.name(), n -> new ShadowLog(n, clock));
            key = new BoundKey(countKey, store.bind(countKey), mode, where, shadow, metrics);
            keys.put(id, key);
        } else if (key.key.algorithm() != policy.algorithm()) {
            throw new InvalidRateLimitException("ratelimit: the limit name \"" + policy.name() + "\" has the algorithm "
                    + key.key.algorithm() + " on " + key.firstWhere + " and " + policy.algorithm() + " on " + where
                    + (plan == null ? "" : " (plan \"" + plan.name() + "\")")
                    + ": limits that share a name share a count, so they must share an algorithm");
        } else if (key.key.perApplication() != (per == RateLimitPer.APPLICATION)) {
            throw new InvalidRateLimitException("ratelimit: the limit name \"" + policy.name() + "\" counts per "
                    + (key.key.perApplication() ? "application" : "caller") + " on " + key.firstWhere + " and per "
                    + per.name().toLowerCase(Locale.ROOT) + " on " + where
                    + ": limits that share a name share a count, so they must agree on whose it is (per)");
        }
        return key;
    }

    /** Notes a declaration; warns once per pair of call sites when a name is shared by limits of different sizes. */
    private void declare(String where, RateLimitPolicy declared, RateLimitPolicy effective, RateLimitPer per) {
        Declaration first = declarations.putIfAbsent(declared.name(), new Declaration(declared, effective, where, per));
        if (first != null && !first.effective.sameSize(effective)
                && sizeWarnings.add(declared.name() + '\u0000' + first.where + '\u0000' + where)) {
            LOG.log(Level.WARNING, "ratelimit: the limit name \"" + declared.name() + "\" is shared by " + first.where
                    + " (" + first.effective.permitLimit() + "/" + first.effective.windowSeconds() + "s) and " + where
                    + " (" + effective.permitLimit() + "/" + effective.windowSeconds() + "s); they spend from one count "
                    + "per partition, sized by whichever request creates it");
        }
    }

    private record Declaration(RateLimitPolicy declared, RateLimitPolicy effective, String where, RateLimitPer per) {
    }
}
