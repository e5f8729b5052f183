package dev.ratelimit.core.binding;

import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPlanResolver;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.config.Plan;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.KeyParameter;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.ResolvedLimits;
import dev.ratelimit.core.guard.GuardedStore;
import dev.ratelimit.core.log.RateLimitedLog;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Deployment: binds the limits of each call site once, before any request, in the configuration in force
 * (overrides, modes and plans applied; each (name, plan) bound to the store and its metric counters by
 * {@link CountBindings}), and binds every call site again in each configuration that live values put in force.
 * Validates what only the configuration can make invalid (a cost above an overridden limit, a wait on a resource
 * method, one name with two algorithms or two {@code per}). What it makes ({@link BoundLimits}, {@link ScopedLimits},
 * {@link NamedLimit}, {@link LiveLimits}) is all the request path ({@code RateLimitEngine}) needs: a call looks
 * nothing up by name. It binds limits that {@link dev.ratelimit.core.declaration.LimitResolver} resolved, never
 * declarations it would have to order itself.
 *
 * <p>Thread-safe: every method that binds or reads what was bound holds {@code this}, which also guards
 * {@link #names}, {@link #counts} and {@link #sites}; {@code named} is read without it first (made once per name,
 * then only read).
 *
 * <p>One job, just over 400 lines: binding call sites in a configuration. The parts that are jobs of their own are
 * their own classes ({@link CallSiteBinder}, {@link CountBindings}, {@link DeclaredNames}, {@link StartupText}).
 */
public final class LimitBinder {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit");

    /** The settings the application started with. */
    private final RateLimitSettings settings;
    private final GuardedStore store;
    /** True when the configuration may change while the application runs: a limit off now may apply later. */
    private final boolean refreshing;
    /** The application's own plan resolver, or null: then each configuration's {@link RolePlanResolver}. */
    private final RateLimitPlanResolver customResolver;
    /** Where the plan resolver's failures are logged, at most once a minute, whatever the configuration. */
    private final RateLimitedLog planFailures;
    private final DeclaredNames names = new DeclaredNames();
    private final CountBindings counts;
    private final CallSiteBinder callSites;
    /** Every call site with something to decide, by {@link BoundLimits#index}. */
    private final List<BoundLimits> sites = new ArrayList<>();
    private final ConcurrentHashMap<String, NamedLimit> named = new ConcurrentHashMap<>();
    /** The configuration in force, with every call site bound in it: written under this, read by every request. */
    private volatile LiveLimits live;

    /**
     * @param sharedStoreWithoutSecret the store's name when it is shared by instances and {@code ratelimit.key-secret}
     *                                 is unset (a {@code per = ARGUMENT} limit then fails); else null
     */
    public LimitBinder(RateLimitSettings settings, GuardedStore store, RateLimitMetrics metrics, LongSupplier clock,
                       boolean refreshing, RateLimitPlanResolver customResolver, String sharedStoreWithoutSecret) {
        this.settings = settings;
        this.store = store;
        this.counts = new CountBindings(store, metrics, clock);
        this.callSites = new CallSiteBinder(counts, sharedStoreWithoutSecret);
        this.refreshing = refreshing && settings.enabled();
        this.customResolver = customResolver;
        this.planFailures = new RateLimitedLog(LOG, Level.WARNING, RateLimitedLog.MINUTE_NANOS, clock);
        this.live = new LiveLimits(0, settings, new PlanIndex(settings.plans()), planResolver(settings), planFailures,
                new LiveLimits.Site[0], Map.of());
    }

    /** The configuration in force: one volatile read. */
    public LiveLimits live() {
        return live;
    }

    /** True when the configuration is read again while the application runs ({@code ratelimit.refresh-seconds}). */
    public boolean refreshing() {
        return refreshing;
    }

    /**
     * Binds the limits of a call site decided on every call (a CDI bean method, a client interface method): a
     * method called twice in a request spends twice.
     *
     * @param limits what the resolver made of the method's declarations
     * @throws InvalidRateLimitException naming the call site and the value: when the limits have a problem
     *                                   ({@link ResolvedLimits#orThrow}), a cost exceeds its limit after
     *                                   configuration, or limits sharing a name disagree on their algorithm or
     *                                   {@code per} (the message names both)
     */
    public BoundLimits bind(ResolvedLimits limits) {
        limits.orThrow();
        return bind(BoundLimits.Shape.beanMethod(limits.where(), limits.key()), limits.limits());
    }

    /**
     * Binds the limits that the CDI interceptor decides when a resource method is invoked for its request: those
     * counted per argument ({@code per = ARGUMENT}, in the configuration in force), by the method's
     * {@code @RateLimitKey} argument; at most once per request, its response's status telling a success.
     *
     * @param limits what the resolver made of the method's class and method declarations (a limit per argument is
     *               declared on one of them)
     * @return the bound limits; {@linkplain BoundLimits#isEmpty empty} for a method without a key (nothing counts
     *         per argument)
     * @throws InvalidRateLimitException as {@link #bind}
     */
    public BoundLimits bindAtInvocation(ResolvedLimits limits) {
        limits.orThrow();
        BoundLimits.Shape shape = BoundLimits.Shape.resourceMethodAtInvocation(limits.where(), limits.key());
        return limits.key() == null ? unbound(shape, List.of(), "(none)") : bind(shape, limits.limits());
    }

    /**
     * Binds a resource method's limits, one call site per scope, each decided at most once per request however often
     * a container runs the filter that decides it (exactly once), and its status telling a success (a limit that
     * counts only failures gives its permit back then). The global limit of each configuration joins its scope: it
     * may be set, changed or removed while the application runs. The limits counted per argument are left to the
     * interceptor ({@link #bindAtInvocation}).
     *
     * @throws InvalidRateLimitException as {@link #bind}, and when a limit of the method may wait
     */
    public ScopedLimits bindResourceMethod(ResolvedLimits limits) {
        return bindResourceMethod(limits, true);
    }

    /**
     * {@link #bindResourceMethod(ResolvedLimits)} where the runtime may not tell client addresses.
     *
     * @param addressesKnown false where the runtime cannot tell client addresses: a {@code per = ADDRESS} limit fails
     * @throws InvalidRateLimitException as {@link #bindResourceMethod(ResolvedLimits)}, and for a {@code per = ADDRESS}
     *                                   limit where addresses are not known
     */
    public ScopedLimits bindResourceMethod(ResolvedLimits limits, boolean addressesKnown) {
        limits.orThrow();
        return new ScopedLimits(
                bind(scoped(limits, RateLimitScope.TRANSPORT, addressesKnown), limits.inScope(RateLimitScope.TRANSPORT)),
                bind(scoped(limits, RateLimitScope.PRINCIPAL, addressesKnown), limits.inScope(RateLimitScope.PRINCIPAL)),
                limits.key() != null);
    }

    private static BoundLimits.Shape scoped(ResolvedLimits limits, RateLimitScope scope, boolean addressesKnown) {
        return BoundLimits.Shape.resourceMethod(limits.where(), scope, limits.key(),
                addressesKnown ? BoundLimits.Addresses.KNOWN : BoundLimits.Addresses.UNKNOWN);
    }

    private synchronized BoundLimits bind(BoundLimits.Shape shape, List<LimitDeclaration> limits) {
        boolean globalMayJoin = refreshing && shape.scope() != null && shape.scope() == settings.globalScope();
        if (!settings.enabled() || (limits.isEmpty() && !globalMayJoin)) {
            for (LimitDeclaration declared : limits) {
                names.declareUnbound(shape.where(), declared, declared.per());
            }
            return unbound(shape, limits, limits.isEmpty() ? "(none)" : "(ratelimit.enabled=false)");
        }
        LiveLimits now = live;
        Map<String, BoundKey> keys = new HashMap<>(now.keys);
        LiveLimits.Site site = callSites.bind(now.settings, now.plans, limits, shape, keys);
        for (LimitDeclaration declared : limits) {
            names.declare(shape.where(), declared, now.settings.effective(declared.policy(), null).policy(),
                    CallSiteBinder.per(now.settings, declared), shape.key() != null && shape.key().exact());
        }
        BoundLimits bound = new BoundLimits(shape, limits, sites.size(), describe(limits), site.empty && !refreshing);
        sites.add(bound);
        live = now.with(site, keys);
        return bound;
    }

    private static BoundLimits unbound(BoundLimits.Shape shape, List<LimitDeclaration> limits, String description) {
        return new BoundLimits(shape, limits, -1, description, true);
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
            String where = "the programmatic API (\"" + name + "\")";
            LimitDeclaration first = names.declaration(name);
            if (now.settings.configuredLimit(name) != null) {
                names.declare("configuration (" + RateLimitSettings.LIMITS + name + ".*)",
                        namedDeclaration(where, policy, per, first), policy, per, false);
            }
            List<LimitDeclaration> declared = List.of(namedDeclaration(where, policy, per, first));
            String description = describe(declared);
            Map<String, BoundKey> keys = new HashMap<>(now.keys);
            BoundLimits.Shape acquireShape = named(where, BoundLimits.Use.ACQUIRE, names.exactKeys(name));
            BoundLimits.Shape chargeShape = named(where, BoundLimits.Use.CHARGE, names.exactKeys(name));
            LiveLimits.Site acquireSite = callSites.bind(now.settings, now.plans, declared, acquireShape, keys);
            LiveLimits.Site chargeSite = callSites.bind(now.settings, now.plans, declared, chargeShape, keys);
            BoundLimits acquire = new BoundLimits(acquireShape, declared, sites.size(), description, !settings.enabled());
            sites.add(acquire);
            BoundLimits charge = new BoundLimits(chargeShape, declared, sites.size(), description, !settings.enabled());
            sites.add(charge);
            live = now.with(acquireSite, keys).with(chargeSite, keys);
            limit = new NamedLimit(name, acquire, charge);
            named.put(name, limit);
            return limit;
        }
    }

    /**
     * The shape of a named limit's call site: every limit, the response's status telling a success (for a limit that
     * counts only failures), keys digested as the name's first declaration digests them.
     */
    private static BoundLimits.Shape named(String where, BoundLimits.Use use, boolean exactKeys) {
        KeyParameter key = exactKeys ? new KeyParameter(0, "java.lang.String", false, true) : null;
        return BoundLimits.Shape.named(where, use, key);
    }

    /**
     * What the programmatic API spends from a name: one permit per unit, never waiting; counting what its first
     * declaration counts (only failures, and which) unless configuration says otherwise.
     */
    private static LimitDeclaration namedDeclaration(String where, RateLimitPolicy policy, RateLimitPer per,
                                                     LimitDeclaration first) {
        LimitDeclaration.Builder named = LimitDeclaration.builder(DeclaredOn.METHOD, where).policy(policy).per(per);
        if (first != null) {
            named.failuresOnly(first.failuresOnly()).failureStatuses(first.failureStatuses());
        }
        return named.build();
    }

    /** The policy a named limit spends by: configuration alone wins, else the first declaration, else {@code last}. */
    private RateLimitPolicy namedPolicy(RateLimitSettings settings, String name, RateLimitPolicy last) {
        RateLimitPolicy policy = settings.configuredLimit(name);
        if (policy != null) {
            return policy;
        }
        RateLimitPolicy declared = names.policy(name);
        return declared != null ? declared : last;
    }

    /** Whose count a named limit spends from: configuration wins, else its first declaration, else per caller. */
    private RateLimitPer namedPer(RateLimitSettings settings, String name) {
        RateLimitPer configured = settings.limit(name).per();
        if (configured != null) {
            return configured;
        }
        RateLimitPer declared = names.per(name);
        return declared != null ? declared : RateLimitPer.CALLER;
    }

    // ------------------------------------------------------------------ live values

    /**
     * Binds every call site in {@code next} without putting it in force: what {@link #apply} would do.
     *
     * @throws InvalidRateLimitException (or {@code IllegalArgumentException}) naming what {@code next} makes invalid
     */
    public synchronized void check(RateLimitSettings next) {
        prepare(next);
    }

    /**
     * Puts {@code next} in force: every call site bound in it, published at once (the next request decides in it).
     * Counts are kept; each (name, plan) whose window or algorithm changed is logged, its counts starting afresh as
     * requests find them ({@link dev.ratelimit.core.RateLimitRequest#tag}).
     *
     * The store guard forgets the refusals it remembers: a raised limit must let a refused caller in at once.
     *
     * @throws InvalidRateLimitException (or {@code IllegalArgumentException}) naming what {@code next} makes
     *                                   invalid; then nothing changes
     */
    public synchronized void apply(RateLimitSettings next) {
        LiveLimits before = live;
        LiveLimits after = prepare(next);
        live = after;
        store.valuesChanged(after.settings); // refusals forgotten, slices given back
        for (String name : names.names()) {
            logAfresh(names.policy(name), before, after);
        }
        if (after.settings.global() != null && !names.contains(after.settings.global().name())) {
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
                bound[i] = callSites.bind(next, plans, limits.declared(), limits.shape(), keys);
            } else {
                LimitDeclaration first = limits.declared().get(0);
                RateLimitPolicy declared = first.policy();
                RateLimitPolicy policy = namedPolicy(next, declared.name(), declared);
                bound[i] = callSites.bind(next, plans, List.of(namedDeclaration(limits.where(), policy,
                        namedPer(next, declared.name()), first)), limits.shape(), keys);
            }
        }
        return new LiveLimits(live.generation + 1, next, plans, planResolver(next), planFailures, bound, keys);
    }

    /** The application's own plan resolver, else the default on {@code settings}' plans. */
    private RateLimitPlanResolver planResolver(RateLimitSettings settings) {
        return customResolver != null ? customResolver : new RolePlanResolver(settings.plans());
    }

    // ------------------------------------------------------------------ what the admin API and start-up read

    /** Every limit name declared, with where, in order of first declaration. */
    public synchronized Map<String, List<String>> declaredNames() {
        Map<String, List<String>> all = new LinkedHashMap<>();
        for (String name : names.names()) {
            all.put(name, names.where(name));
        }
        RateLimitPolicy global = live.settings.global();
        if (global != null && !all.containsKey(global.name())) {
            all.put(global.name(), List.of(LimitDeclaration.GLOBAL_PLACE));
        }
        for (String name : live.settings.configuredLimits()) {
            all.putIfAbsent(name, List.of("configuration (" + RateLimitSettings.LIMITS + name + ".*)"));
        }
        return all;
    }

    /** The first declaration of a name (for a name only configuration declares, that), or null. */
    public synchronized RateLimitPolicy declaredPolicy(String name) {
        RateLimitPolicy declared = names.policy(name);
        if (declared != null) {
            return declared;
        }
        RateLimitPolicy global = live.settings.global();
        return global != null && global.name().equals(name) ? global : null;
    }

    /** The partitions a name refused most, or null when nothing declares it. */
    public synchronized RefusalSummary refusals(String name) {
        return declaredPolicy(name) != null || live.settings.configuredLimit(name) != null ? counts.refusals(name) : null;
    }

    public GuardedStore store() {
        return store;
    }

    /** True when a name's keys count as sent ({@code @RateLimitKey(exact = true)} where it was first declared). */
    public synchronized boolean exactKeys(String name) {
        return names.exactKeys(name);
    }

    /** Whose count a name spends from, in the configuration in force (configuration, else its first declaration). */
    public synchronized RateLimitPer perOf(String name) {
        return namedPer(live.settings, name);
    }

    /** Warnings for configuration keys that name nothing bound so far (see {@link RateLimitSettings#unknownKeys}). */
    public synchronized List<String> unknownKeyWarnings() {
        return live.settings.unknownKeys(new TreeSet<>(names.names()));
    }

    /** The store, the policy around it, the mode, the partition header and the plans, for the start-up line. */
    public String summary() {
        return StartupText.summary(store, settings, live.plans);
    }

    /**
     * The effective values, modes and plans of limits in the configuration in force, as the start-up line shows
     * them: {@code ["default" 3/60s (gold: 10/60s)]}.
     */
    public String describe(List<LimitDeclaration> limits) {
        LiveLimits now = live;
        return StartupText.describe(now.settings, now.plans, limits);
    }
}
