package dev.ratelimit.core.engine;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.LimitRules;
import dev.ratelimit.core.RateLimitMode;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitPlanResolver;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.address.PartitionSource;
import dev.ratelimit.core.config.LimitValues;
import dev.ratelimit.core.config.Plan;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.config.RateLimitSettings.Effective;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import dev.ratelimit.core.metrics.RateLimitMetrics.Counter;
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
import java.util.TreeMap;
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

    /** The origin of the global limit's declaration ({@code ratelimit.global.*}). */
    static final String GLOBAL_ORIGIN = "ratelimit.global.*";

    /** The engine binding through this binder (a request's ledger reaches it through the configuration it read). */
    private final RateLimitEngine engine;
    private final RateLimitSettings settings;
    private final GuardedStore store;
    private final RateLimitMetrics metrics;
    private final LongSupplier clock;
    /** True when the configuration may change while the application runs (SPEC 19): a limit off now may apply later. */
    private final boolean refreshing;
    /** The application's own plan resolver, or null: then each configuration's {@link RolePlanResolver}. */
    private final RateLimitPlanResolver customResolver;
    /** Guarded by this: the first declaration of each name. */
    private final Map<String, Declaration> declarations = new LinkedHashMap<>();
    /** Guarded by this: where each name is declared, for the admin API. */
    private final Map<String, Set<String>> declaredOn = new TreeMap<>();
    private final Set<String> sizeWarnings = new HashSet<>();
    private final Map<String, ShadowLog> shadowLogs = new HashMap<>();
    /** Guarded by this: per name or name/plan, its metric counters, bound once. */
    private final Map<String, Counter[]> counters = new HashMap<>();
    /** Guarded by this: per name, the partitions it refused most. */
    private final Map<String, RefusalSummary> refusals = new HashMap<>();
    /** Guarded by this: per name, how long calls waited for its permits; made when a call site that may wait binds it. */
    private final Map<String, RateLimitMetrics.Timer> waitTimers = new HashMap<>();
    /** Guarded by this: per name/plan, algorithm and whose count, its count key and the store's handle. */
    private final Map<String, Object[]> countKeys = new HashMap<>();
    /** Guarded by this: every call site with something to decide, by {@link BoundLimits#index}. */
    private final List<BoundLimits> sites = new ArrayList<>();
    private final ConcurrentHashMap<String, NamedLimit> named = new ConcurrentHashMap<>();
    /** The configuration in force, with every call site bound in it: written under this, read by every request. */
    private volatile LiveLimits live;

    LimitBinder(RateLimitEngine engine, RateLimitSettings settings, GuardedStore store, RateLimitMetrics metrics,
                LongSupplier clock, boolean refreshing, RateLimitPlanResolver customResolver) {
        this.engine = engine;
        this.settings = settings;
        this.store = store;
        this.metrics = metrics;
        this.clock = clock;
        this.refreshing = refreshing && settings.enabled();
        this.customResolver = customResolver;
        this.live = new LiveLimits(engine, 0, settings, new PlanIndex(settings.plans()), roles(settings),
                new LiveLimits.Site[0], Map.of());
    }

    /** The configuration in force: one volatile read. */
    LiveLimits live() {
        return live;
    }

    /** True when the configuration is read again while the application runs ({@code ratelimit.refresh-seconds}). */
    public boolean refreshing() {
        return refreshing;
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
        return bind(where, limits, false, null);
    }

    /**
     * {@link #bind}, for the limits of a request's resource method in one scope: decided at most once per
     * request, however often a container runs the filter that decides them (exactly once: SPEC 3).
     */
    public BoundLimits bindOncePerRequest(String where, List<DeclaredLimit> limits) {
        return bind(where, limits, true, null);
    }

    /**
     * {@link #bindOncePerRequest}, knowing the scope: with live values (SPEC 19), the global limit
     * ({@code ratelimit.global.*}) of each configuration joins the limits of its scope, so that it can be set,
     * changed or removed while the application runs.
     */
    public BoundLimits bindResourceMethod(String where, List<DeclaredLimit> limits, RateLimitScope scope) {
        return bind(where, limits, true, scope);
    }

    private synchronized BoundLimits bind(String where, List<DeclaredLimit> limits, boolean oncePerRequest,
                                          RateLimitScope scope) {
        boolean globalMayJoin = refreshing && scope != null && scope == settings.globalScope();
        if (!settings.enabled() || (limits.isEmpty() && !globalMayJoin)) {
            for (DeclaredLimit declared : limits) {
                declarations.putIfAbsent(declared.policy().name(),
                        new Declaration(declared.policy(), declared.policy(), where, declared.per()));
            }
            return new BoundLimits(where, limits, -1, BoundLimits.Use.CALL_SITE, scope,
                    limits.isEmpty() ? "(none)" : "(ratelimit.enabled=false)", true, oncePerRequest);
        }
        LiveLimits now = live;
        Map<String, BoundKey> keys = new HashMap<>(now.keys);
        LiveLimits.Site site = site(now.settings, now.plans, limits, scope, BoundLimits.Use.CALL_SITE, oncePerRequest,
                where, keys);
        for (DeclaredLimit declared : limits) {
            declare(where, declared.policy(), now.settings.effective(declared.policy(), null).policy(),
                    per(now.settings, declared));
        }
        BoundLimits bound = new BoundLimits(where, limits, sites.size(), BoundLimits.Use.CALL_SITE, scope,
                describe(limits), site.empty && !refreshing, oncePerRequest);
        sites.add(bound);
        live = now.with(site, keys);
        return bound;
    }

    /**
     * What the store is asked for one call site in one configuration, per plan. Binds each (name, plan) into
     * {@code keys} the first time this configuration meets it.
     */
    private LiveLimits.Site site(RateLimitSettings settings, PlanIndex plans, List<DeclaredLimit> declaredLimits,
                                 RateLimitScope scope, BoundLimits.Use use, boolean oncePerRequest, String where,
                                 Map<String, BoundKey> keys) {
        List<DeclaredLimit> limits = withGlobal(settings, declaredLimits, scope);
        long[] maxWaitNanos = new long[limits.size()];
        RateLimitPer[] per = new RateLimitPer[limits.size()];
        for (int i = 0; i < limits.size(); i++) {
            DeclaredLimit declared = limits.get(i);
            LimitValues configured = settings.limit(declared.policy().name());
            long maxWait = use != BoundLimits.Use.CALL_SITE ? 0 // the programmatic API never waits
                    : configured.maxWaitMillis() != null ? configured.maxWaitMillis() : declared.maxWaitMillis();
            if (oncePerRequest && maxWait > 0) {
                throw new InvalidRateLimitException(declared.origin() + " on " + where + ": " + LimitRules.resourceMethodWaits(
                        declared.policy().name(), configured.maxWaitMillis() != null ? RateLimitSettings.LIMITS
                                + declared.policy().name() + "." + RateLimitSettings.MAX_WAIT_MILLIS : "maxWaitMillis", maxWait));
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
                DeclaredLimit declared = limits.get(i);
                Effective effective = settings.effective(declared.policy(), plan);
                if (effective.mode() == RateLimitMode.OFF) {
                    continue;
                }
                RateLimitPolicy policy = effective.policy();
                if (use == BoundLimits.Use.CALL_SITE) {
                    String costError = LimitRules.costError(declared.cost(), policy.permitLimit(),
                            (plan == null ? "" : " for the plan \"" + plan.name() + "\"") + ", after configuration");
                    if (costError != null) {
                        throw new InvalidRateLimitException(declared.origin() + " on " + where + ": " + costError);
                    }
                }
                BoundKey key = key(settings, keys, policy, plan, effective.mode(), where, per[i]);
                Kind kind = use == BoundLimits.Use.CHARGE ? Kind.CHARGE
                        : effective.mode() == RateLimitMode.SHADOW ? Kind.SHADOW : Kind.ACQUIRE;
                long maxWait = kind == Kind.ACQUIRE ? maxWaitNanos[i] : 0; // a shadow limit never holds a call back
                if (maxWait > 0) {
                    key.mayWait(waitTimers.computeIfAbsent(policy.name(), metrics::waited));
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

    /**
     * A resource method's limits of one scope with the global limit of {@code settings} in first place (when set,
     * and of that scope) instead of the one it was declared with; other call sites' limits as declared.
     */
    /** Whose count a declared limit spends from in {@code settings}: {@code ratelimit.limits.<name>.per} wins. */
    private static RateLimitPer per(RateLimitSettings settings, DeclaredLimit declared) {
        RateLimitPer configured = settings.limit(declared.policy().name()).per();
        return configured != null ? configured : declared.per();
    }

    private static List<DeclaredLimit> withGlobal(RateLimitSettings settings, List<DeclaredLimit> limits,
                                                  RateLimitScope scope) {
        if (scope == null) {
            return limits;
        }
        List<DeclaredLimit> all = new ArrayList<>(limits.size() + 1);
        if (settings.global() != null && settings.globalScope() == scope) {
            all.add(new DeclaredLimit(settings.global(), 1, GLOBAL_ORIGIN));
        }
        for (DeclaredLimit declared : limits) {
            if (!GLOBAL_ORIGIN.equals(declared.origin())) {
                all.add(declared);
            }
        }
        return all;
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
            LiveLimits now = live;
            RateLimitPolicy policy = namedPolicy(now.settings, name, null);
            if (policy == null) {
                throw new IllegalArgumentException("ratelimit: no limit is named \"" + name + "\": declare it with "
                        + "@RateLimit(name = \"" + name + "\", ...) or with " + RateLimitSettings.LIMITS + name + "."
                        + RateLimitSettings.PERMIT_LIMIT + " and ." + RateLimitSettings.WINDOW_SECONDS);
            }
            RateLimitPer per = namedPer(now.settings, name);
            if (now.settings.configuredLimit(name) != null) {
                declare("configuration (" + RateLimitSettings.LIMITS + name + ".*)", policy, policy, per);
            }
            String where = "the programmatic API (\"" + name + "\")";
            List<DeclaredLimit> declared = List.of(new DeclaredLimit(policy, 1, where, 0, per));
            String description = describe(declared);
            Map<String, BoundKey> keys = new HashMap<>(now.keys);
            LiveLimits.Site acquireSite = site(now.settings, now.plans, declared, null, BoundLimits.Use.ACQUIRE, false, where,
                    keys);
            LiveLimits.Site chargeSite = site(now.settings, now.plans, declared, null, BoundLimits.Use.CHARGE, false, where,
                    keys);
            BoundLimits acquire = new BoundLimits(where, declared, sites.size(), BoundLimits.Use.ACQUIRE, null,
                    description, !settings.enabled(), false);
            sites.add(acquire);
            BoundLimits charge = new BoundLimits(where, declared, sites.size(), BoundLimits.Use.CHARGE, null,
                    description, !settings.enabled(), false);
            sites.add(charge);
            live = now.with(acquireSite, keys).with(chargeSite, keys);
            limit = new NamedLimit(name, acquire, charge);
            named.put(name, limit);
            return limit;
        }
    }

    /** The policy a named limit spends by: configuration alone wins, else the first declaration, else {@code last}. */
    private RateLimitPolicy namedPolicy(RateLimitSettings settings, String name, RateLimitPolicy last) {
        RateLimitPolicy policy = settings.configuredLimit(name);
        if (policy != null) {
            return policy;
        }
        Declaration declaration = declarations.get(name);
        return declaration != null ? declaration.declared : last;
    }

    /** Whose count a named limit spends from: configuration wins, else its first declaration, else per caller. */
    private RateLimitPer namedPer(RateLimitSettings settings, String name) {
        RateLimitPer configured = settings.limit(name).per();
        if (configured != null) {
            return configured;
        }
        Declaration declaration = declarations.get(name);
        return declaration != null ? declaration.per : RateLimitPer.CALLER;
    }

    // ------------------------------------------------------------------ live values (SPEC 19)

    /**
     * Binds every call site in {@code next} without putting it in force: what {@link #apply} would do.
     *
     * @throws InvalidRateLimitException (or {@code IllegalArgumentException}) naming what {@code next} makes invalid
     */
    synchronized void check(RateLimitSettings next) {
        prepare(next);
    }

    /**
     * Puts {@code next} in force: every call site bound in it, published at once (the next request decides in it).
     * Counts are kept; each (name, plan) whose window or algorithm changed is logged, its counts starting afresh as
     * requests find them ({@link dev.ratelimit.core.RateLimitRequest#tag}).
     *
     * @throws InvalidRateLimitException (or {@code IllegalArgumentException}) naming what {@code next} makes
     *                                   invalid; then nothing changes
     */
    synchronized void apply(RateLimitSettings next) {
        LiveLimits before = live;
        LiveLimits after = prepare(next);
        live = after;
        for (Declaration declaration : declarations.values()) {
            logAfresh(declaration.declared, before, after);
        }
        if (after.settings.global() != null && !declarations.containsKey(after.settings.global().name())) {
            logAfresh(after.settings.global(), before, after);
        }
    }

    private void logAfresh(RateLimitPolicy declared, LiveLimits before, LiveLimits after) {
        for (int p = 0; p < after.plans.size(); p++) {
            Plan plan = after.plans.get(p);
            Plan was = plan == null ? null : before.plans.named(plan.name());
            if (plan != null && was == null) {
                continue;
            }
            RateLimitPolicy old = before.settings.effective(declared, was).policy();
            RateLimitPolicy now = after.settings.effective(declared, plan).policy();
            if (old.windowSeconds() != now.windowSeconds() || old.algorithm() != now.algorithm()) {
                LOG.log(Level.INFO, "ratelimit: the limit \"" + declared.name() + "\"" + (plan == null ? "" : " (plan \""
                        + plan.name() + "\")") + " now counts " + now.windowSeconds() + "s " + now.algorithm() + " (was "
                        + old.windowSeconds() + "s " + old.algorithm() + "): its counts start afresh");
            }
        }
    }

    private LiveLimits prepare(RateLimitSettings next) {
        PlanIndex plans = new PlanIndex(next.plans());
        Map<String, BoundKey> keys = new HashMap<>();
        LiveLimits.Site[] bound = new LiveLimits.Site[sites.size()];
        for (int i = 0; i < bound.length; i++) {
            BoundLimits limits = sites.get(i);
            if (limits.use() == BoundLimits.Use.CALL_SITE) {
                bound[i] = site(next, plans, limits.declared(), limits.scope(), limits.use(), limits.oncePerRequest(),
                        limits.where(), keys);
            } else {
                RateLimitPolicy declared = limits.declared().get(0).policy();
                RateLimitPolicy policy = namedPolicy(next, declared.name(), declared);
                bound[i] = site(next, plans, List.of(new DeclaredLimit(policy, 1, limits.where(), 0,
                        namedPer(next, declared.name()))), null, limits.use(), false, limits.where(), keys);
            }
        }
        return new LiveLimits(engine, live.generation + 1, next, plans, roles(next), bound, keys);
    }

    private RateLimitPlanResolver roles(RateLimitSettings settings) {
        return customResolver != null ? null : new RolePlanResolver(settings.plans());
    }

    /**
     * The sizing tag of (name, plan) in {@code settings}: a digest of every value of the configuration that sizes
     * its counts ({@code ratelimit.limits.<name>.*}, the plan's, and {@code ratelimit.global.*} for the global
     * limit's name), the same on every instance with the same configuration.
     */
    static int sizingTag(RateLimitSettings settings, String name, Plan plan) {
        int tag = digest(settings.limit(name));
        if (plan != null) {
            tag = 31 * tag + digest(settings.plan(plan, name));
        }
        RateLimitPolicy global = settings.global();
        if (global != null && global.name().equals(name)) {
            tag = 31 * tag + global.permitLimit() * 17 + global.windowSeconds();
        }
        return tag;
    }

    private static int digest(LimitValues values) {
        return java.util.Objects.hash(values.permitLimit(), values.windowSeconds(),
                values.algorithm() == null ? null : values.algorithm().name());
    }

    // ------------------------------------------------------------------ the admin API (SPEC 19)

    /** Every limit name declared, with where, in order of first declaration. */
    synchronized Map<String, List<String>> declaredNames() {
        Map<String, List<String>> all = new LinkedHashMap<>();
        for (String name : declarations.keySet()) {
            all.put(name, List.copyOf(declaredOn.getOrDefault(name, Set.of())));
        }
        RateLimitPolicy global = live.settings.global();
        if (global != null && !all.containsKey(global.name())) {
            all.put(global.name(), List.of(GLOBAL_ORIGIN));
        }
        for (String name : live.settings.configuredLimits()) {
            all.putIfAbsent(name, List.of("configuration (" + RateLimitSettings.LIMITS + name + ".*)"));
        }
        return all;
    }

    /** The first declaration of a name (for a name only configuration declares, that), or null. */
    synchronized RateLimitPolicy declaredPolicy(String name) {
        Declaration declaration = declarations.get(name);
        if (declaration != null) {
            return declaration.declared;
        }
        RateLimitPolicy global = live.settings.global();
        return global != null && global.name().equals(name) ? global : null;
    }

    /** The partitions a name refused most, or null when nothing declares it. */
    synchronized RefusalSummary refusals(String name) {
        return declaredPolicy(name) != null || live.settings.configuredLimit(name) != null
                ? refusals.computeIfAbsent(name, n -> new RefusalSummary(RefusalSummary.DEFAULT_CAPACITY)) : null;
    }

    GuardedStore store() {
        return store;
    }

    /** Warnings for configuration keys that name nothing bound so far (see {@link RateLimitSettings#unknownKeys}). */
    public synchronized List<String> unknownKeyWarnings() {
        return live.settings.unknownKeys(new TreeSet<>(declarations.keySet()));
    }

    /** The store, the policy around it, the mode, the partition header and the plans, for the start-up line. */
    public String summary() {
        StringJoiner planList = new StringJoiner(", ");
        PlanIndex plans = live.plans;
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
        RateLimitSettings settings = live.settings;
        PlanIndex plans = live.plans;
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
            if (per(settings, declared) == RateLimitPer.APPLICATION) {
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

    private BoundKey key(RateLimitSettings settings, Map<String, BoundKey> keys, RateLimitPolicy policy, Plan plan,
                         RateLimitMode mode, String where, RateLimitPer per) {
        String id = plan == null ? policy.name() : policy.name() + '/' + plan.name();
        BoundKey key = keys.get(id);
        if (key == null) {
            Object[] bound = countKeys.computeIfAbsent(id + '#' + policy.algorithm() + '#' + per, k -> {
                CountKey countKey = new CountKey(policy.name(), plan == null ? null : plan.name(), policy.algorithm(), per);
                return new Object[] {countKey, store.bind(countKey)};
            });
            CountKey countKey = (CountKey) bound[0];
            ShadowLog shadow = shadowLogs.computeIfAbsent(policy.name(), n -> new ShadowLog(n, clock));
            key = new BoundKey(countKey, bound[1], mode, where, shadow,
                    counters.computeIfAbsent(id, k -> BoundKey.counters(countKey, metrics)),
                    sizingTag(settings, policy.name(), plan),
                    refusals.computeIfAbsent(policy.name(), n -> new RefusalSummary(RefusalSummary.DEFAULT_CAPACITY)));
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
        declaredOn.computeIfAbsent(declared.name(), n -> new java.util.LinkedHashSet<>()).add(where);
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
