package dev.ratelimit.core.engine;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.RateLimitCaller;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitMode;
import dev.ratelimit.core.RateLimitPartitioner;
import dev.ratelimit.core.RateLimitPlanResolver;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.RateLimitStoreException;
import dev.ratelimit.core.address.OrderedPartitioner;
import dev.ratelimit.core.address.PartitionSource;
import dev.ratelimit.core.config.OnFailure;
import dev.ratelimit.core.config.Plan;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.config.RateLimitSettings.Effective;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import java.lang.System.Logger.Level;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * The one request path (SPEC 16). The Jakarta REST filters, the CDI interceptor and the programmatic API
 * are thin adapters over it: they make a {@link RequestLedger} (the partition, chosen once) and ask it to
 * decide the limits they bound at deployment. Here, in one place: the plan (at most one resolver call per
 * request), the store call (at once for the in-process store; chained for a remote one), the failure
 * policy and its log ({@link GuardedStore}), the record in the ledger, the metrics, the shadow log, and the
 * give-back of a refused request.
 *
 * <p>Deployment ({@link #bind}, {@link #named}) resolves everything that can be resolved: configuration
 * overrides, modes, plans, the store's handles, the metric counters. A call then does no lookup by name,
 * reads no configuration and reflects on nothing.
 *
 * <p>Thread-safe. Deployment state is guarded by {@code this}; calls read only immutable bound values.
 */
public final class RateLimitEngine {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit");

    private final RateLimitSettings settings;
    private final GuardedStore store;
    private final RateLimitPartitioner partitioner;
    private final RateLimitPlanResolver planResolver;
    /** Index 0: callers in no plan (null); then the plans in order of precedence. */
    private final Plan[] plans;
    private final Map<String, Plan> plansByName = new HashMap<>();
    private final RateLimitMetrics metrics;
    private final LongSupplier clock;
    private final RateLimitedLog planFailures;
    /** Guarded by this: name or name/plan to its bound key. */
    private final Map<String, BoundKey> keys = new HashMap<>();
    /** Written under this; read by the failure listener. */
    private final Map<CountKey, BoundKey> keysByCountKey = new ConcurrentHashMap<>();
    /** Guarded by this: the first declaration of each name. */
    private final Map<String, Declaration> declarations = new LinkedHashMap<>();
    private final Set<String> sizeWarnings = new HashSet<>();
    private final Map<String, ShadowLog> shadowLogs = new HashMap<>();
    private final ConcurrentHashMap<String, NamedLimit> named = new ConcurrentHashMap<>();

    private RateLimitEngine(Builder b) {
        this.settings = b.settings;
        this.metrics = b.metrics;
        this.clock = b.clock;
        this.planFailures = new RateLimitedLog(LOG, Level.WARNING, RateLimitedLog.MINUTE_NANOS, clock);
        this.partitioner = b.partitioner != null ? b.partitioner : new OrderedPartitioner(settings.partitionBy(),
                settings.partitionHeader(), settings.clientAddresses());
        List<Plan> configured = settings.plans();
        this.plans = new Plan[configured.size() + 1];
        for (Plan plan : configured) {
            plans[plan.index()] = plan;
            plansByName.put(plan.name(), plan);
        }
        this.planResolver = b.planResolver != null ? b.planResolver : new RolePlanResolver(configured);
        this.store = new GuardedStore(b.store, settings.timeoutMillis(), settings.onFailure(),
                settings.maxTrackedPartitions(), clock, metrics, this::storeFailed);
    }

    /**
     * An engine on {@code store} with {@code settings}.
     *
     * @param settings the validated settings
     * @param store    the store, unguarded: the engine applies the timeout and failure policy around it
     */
    public static Builder builder(RateLimitSettings settings, RateLimitStore store) {
        return new Builder(settings, store);
    }

    public RateLimitSettings settings() {
        return settings;
    }

    /** False when {@code ratelimit.enabled=false}: every call site binds to nothing. */
    public boolean enabled() {
        return settings.enabled();
    }

    /** The store, as the engine calls it: guarded by the timeout and the failure policy. */
    public RateLimitStore store() {
        return store;
    }

    /** The store the application configured (in-process, Redis, its own). */
    public RateLimitStore delegateStore() {
        return store.delegate();
    }

    /** True when the store decides at once ({@link #decideNow} never waits). */
    public boolean decidesAtOnce() {
        return store.immediate();
    }

    // ------------------------------------------------------------------ deployment

    /**
     * Binds the limits of one call site, once, at deployment: applies {@code ratelimit.limits.*}, the modes
     * and the plans, and binds each (name, plan) to the store and the metrics.
     *
     * The limits are decided on every call of the call site ({@link #decide}): a bean method's limits spend
     * once per invocation, twice in a request that calls it twice.
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
        RateLimitRequest[] byPlan = new RateLimitRequest[plans.length];
        BoundKey[][] keysByPlan = new BoundKey[plans.length][];
        if (!settings.enabled() || limits.isEmpty()) {
            for (DeclaredLimit declared : limits) {
                declarations.putIfAbsent(declared.policy().name(), new Declaration(declared.policy(), declared.policy(), where));
            }
            return new BoundLimits(where, byPlan, keysByPlan, limits.isEmpty() ? "(none)" : "(ratelimit.enabled=false)",
                    oncePerRequest);
        }
        for (int p = 0; p < plans.length; p++) {
            Plan plan = plans[p];
            RateLimitRequest.Builder request = RateLimitRequest.builder();
            List<BoundKey> bound = new ArrayList<>(limits.size());
            for (DeclaredLimit declared : limits) {
                Effective effective = settings.effective(declared.policy(), plan);
                if (effective.mode() == RateLimitMode.OFF) {
                    continue;
                }
                RateLimitPolicy policy = effective.policy();
                if (declared.cost() > policy.permitLimit()) {
                    throw new InvalidRateLimitException(declared.origin() + " on " + where + ": cost must be between 1 "
                            + "and its permitLimit (" + policy.permitLimit() + (plan == null ? "" : " for the plan \""
                            + plan.name() + "\"") + ", after configuration), was " + declared.cost());
                }
                BoundKey key = key(policy, plan, effective.mode(), where);
                request.add(key.handle, key.key, policy, declared.cost(),
                        effective.mode() == RateLimitMode.SHADOW ? Kind.SHADOW : Kind.ACQUIRE);
                bound.add(key);
            }
            if (!bound.isEmpty()) {
                byPlan[p] = request.build();
                keysByPlan[p] = bound.toArray(new BoundKey[0]);
            }
        }
        for (DeclaredLimit declared : limits) {
            declare(where, declared.policy(), settings.effective(declared.policy(), null).policy());
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
            if (policy == null) {
                Declaration declaration = declarations.get(name);
                if (declaration == null) {
                    throw new IllegalArgumentException("ratelimit: no limit is named \"" + name + "\": declare it with "
                            + "@RateLimit(name = \"" + name + "\", ...) or with " + RateLimitSettings.LIMITS + name + "."
                            + RateLimitSettings.PERMIT_LIMIT + " and ." + RateLimitSettings.WINDOW_SECONDS);
                }
                policy = declaration.declared;
            } else {
                declare("configuration (" + RateLimitSettings.LIMITS + name + ".*)", policy, policy);
            }
            RateLimitRequest[] acquire = new RateLimitRequest[plans.length];
            RateLimitRequest[] charge = new RateLimitRequest[plans.length];
            BoundKey[][] keysByPlan = new BoundKey[plans.length][];
            for (int p = 0; p < plans.length && settings.enabled(); p++) {
                Effective effective = settings.effective(policy, plans[p]);
                if (effective.mode() == RateLimitMode.OFF) {
                    continue;
                }
                BoundKey key = key(effective.policy(), plans[p], effective.mode(), "the programmatic API");
                acquire[p] = RateLimitRequest.of(key.handle, key.key, effective.policy(), 1,
                        effective.mode() == RateLimitMode.SHADOW ? Kind.SHADOW : Kind.ACQUIRE);
                charge[p] = RateLimitRequest.of(key.handle, key.key, effective.policy(), 1, Kind.CHARGE);
                keysByPlan[p] = new BoundKey[] {key};
            }
            limit = new NamedLimit(name, acquire, charge, keysByPlan);
            named.put(name, limit);
            return limit;
        }
    }

    /** Every limit name bound so far (declarations and the global limit), for warnings about configuration keys. */
    public synchronized Set<String> declaredNames() {
        return new TreeSet<>(declarations.keySet());
    }

    /** Warnings for configuration keys that name nothing bound so far (see {@link RateLimitSettings#unknownKeys}). */
    public List<String> unknownKeyWarnings() {
        return settings.unknownKeys(declaredNames());
    }

    /**
     * The store, the policy around it, the mode, the partition header, the partition order, the trusted proxies
     * and client prefixes, and the plans, for the start-up line.
     */
    public String summary() {
        StringJoiner planList = new StringJoiner(", ");
        for (int p = 1; p < plans.length; p++) {
            planList.add(plans[p].name() + (plans[p].role().equals(plans[p].name()) ? "" : " (role " + plans[p].role() + ")"));
        }
        return "store " + store + " (" + store.policy() + "); mode " + settings.mode().name().toLowerCase(java.util.Locale.ROOT)
                + "; partition header " + (settings.partitionHeader() == null ? "(none)" : settings.partitionHeader())
                + "; partition by " + String.join(", ", settings.partitionBy().stream().map(PartitionSource::key).toList())
                + "; " + settings.clientAddresses().describe()
                + "; plans " + (plans.length == 1 ? "(none)" : planList);
    }

    private BoundKey key(RateLimitPolicy policy, Plan plan, RateLimitMode mode, String where) {
        String id = plan == null ? policy.name() : policy.name() + '/' + plan.name();
        BoundKey key = keys.get(id);
        if (key == null) {
            CountKey countKey = new CountKey(policy.name(), plan == null ? null : plan.name(), policy.algorithm());
            ShadowLog shadow = shadowLogs.computeIfAbsent(policy.name(), n -> new ShadowLog(n, clock));
            key = new BoundKey(countKey, store.bind(countKey), mode, where, shadow, metrics);
            keys.put(id, key);
            keysByCountKey.put(countKey, key);
        } else if (key.key.algorithm() != policy.algorithm()) {
            throw new InvalidRateLimitException("ratelimit: the limit name \"" + policy.name() + "\" has the algorithm "
                    + key.key.algorithm() + " on " + key.firstWhere + " and " + policy.algorithm() + " on " + where
                    + (plan == null ? "" : " (plan \"" + plan.name() + "\")")
                    + ": limits that share a name share a count, so they must share an algorithm");
        }
        return key;
    }

    /** Notes a declaration; warns once per pair of call sites when a name is shared by limits of different sizes. */
    private void declare(String where, RateLimitPolicy declared, RateLimitPolicy effective) {
        Declaration first = declarations.putIfAbsent(declared.name(), new Declaration(declared, effective, where));
        if (first != null && !first.effective.sameSize(effective)
                && sizeWarnings.add(declared.name() + '\u0000' + first.where + '\u0000' + where)) {
            LOG.log(Level.WARNING, "ratelimit: the limit name \"" + declared.name() + "\" is shared by " + first.where
                    + " (" + first.effective.permitLimit() + "/" + first.effective.windowSeconds() + "s) and " + where
                    + " (" + effective.permitLimit() + "/" + effective.windowSeconds() + "s); they spend from one count "
                    + "per partition, sized by whichever request creates it");
        }
    }

    private record Declaration(RateLimitPolicy declared, RateLimitPolicy effective, String where) {
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
            if (none.mode() != RateLimitMode.ENFORCE) {
                s.append(' ').append(none.mode().name().toLowerCase(java.util.Locale.ROOT));
            }
            StringJoiner byPlan = new StringJoiner(", ", " (", ")");
            byPlan.setEmptyValue("");
            for (int p = 1; p < plans.length; p++) {
                Effective e = settings.effective(declared.policy(), plans[p]);
                if (!e.policy().equals(none.policy()) || e.mode() != none.mode()) {
                    byPlan.add(plans[p].name() + ": " + (e.mode() == RateLimitMode.OFF ? "off"
                            : e.policy().permitLimit() + "/" + e.policy().windowSeconds() + "s"
                            + (e.policy().algorithm() == none.policy().algorithm() ? "" : " " + e.policy().algorithm())
                            + (e.mode() == RateLimitMode.ENFORCE ? "" : " " + e.mode().name().toLowerCase(java.util.Locale.ROOT))));
                }
            }
            all.add(s.append(byPlan));
        }
        return all.toString();
    }

    // ------------------------------------------------------------------ calls

    /**
     * A ledger for one request or call: chooses its partition now.
     *
     * @param caller         the caller (principal, headers, roles)
     * @param resourceMethod the request's resource method, or null outside a Jakarta REST request
     */
    public RequestLedger ledger(RateLimitCaller caller, Method resourceMethod) {
        String partition = partitioner.partition(caller);
        if (partition == null) {
            throw new IllegalStateException("ratelimit: the partitioner " + partitioner + " answered null");
        }
        return new RequestLedger(this, caller, partition, resourceMethod);
    }

    /** A ledger for a call with an explicit partition and no caller (no plan). */
    public RequestLedger ledger(String partition) {
        return new RequestLedger(this, null, Objects.requireNonNull(partition, "partition"), null);
    }

    /**
     * Decides a call site's limits for the ledger's request, at once when the store answers at once (else
     * waiting for it, at most the store timeout), and records the decision.
     *
     * @return the decision; null when nothing was decided (no limit applies to the caller's plan, the call
     *         site was decided already in this request, or the request is refused already)
     * @throws RateLimitStoreException when the store failed and the policy is {@code fail}
     */
    public RateLimitDecision decideNow(RequestLedger ledger, BoundLimits limits) {
        RateLimitRequest request = claim(ledger, limits);
        if (request == null) {
            return null;
        }
        int plan = limits.dependsOnPlan() ? ledger.plan() : 0;
        RateLimitDecision decision = store.immediate()
                ? store.decideNow(ledger.partition(), request, 1)
                : await(store.acquire(ledger.partition(), request, 1));
        return record(ledger, request, limits.keys(plan), decision);
    }

    /**
     * {@link #decideNow}, without waiting: the stage completes with the recorded decision (null when nothing
     * was decided), or fails with {@link RateLimitStoreException}. Completed already for a store that
     * answers at once.
     */
    public CompletionStage<RateLimitDecision> decide(RequestLedger ledger, BoundLimits limits) {
        RateLimitRequest request = claim(ledger, limits);
        if (request == null) {
            return CompletableFuture.completedFuture(null);
        }
        int plan = limits.dependsOnPlan() ? ledger.plan() : 0;
        BoundKey[] keys = limits.keys(plan);
        return store.acquire(ledger.partition(), request, 1).thenApply(decision -> record(ledger, request, keys, decision));
    }

    private RateLimitRequest claim(RequestLedger ledger, BoundLimits limits) {
        if (limits.isEmpty() || ledger.refusal() != null || (limits.oncePerRequest() && !ledger.claim(limits))) {
            return null;
        }
        return limits.request(limits.dependsOnPlan() ? ledger.plan() : 0);
    }

    /**
     * Spends {@code permits} of a named limit for the ledger's caller (the programmatic API), and records it.
     * An acquire is all or nothing with nothing else (the request's other limits are decided already); a
     * charge spends even past the limit and never refuses.
     *
     * @return the decision; null when the limit is off for the caller's plan (or the library is disabled)
     * @throws IllegalArgumentException when {@code permits < 1}, or an acquire asks more than the limit holds
     */
    public RateLimitDecision spendNow(RequestLedger ledger, NamedLimit limit, int permits, boolean charge) {
        RateLimitRequest request = namedRequest(ledger, limit, permits, charge);
        if (request == null) {
            return null;
        }
        RateLimitDecision decision = store.immediate()
                ? store.decideNow(ledger.partition(), request, permits)
                : await(store.acquire(ledger.partition(), request, permits));
        return record(ledger, request, limit.keys(ledger.plan()), decision);
    }

    /** {@link #spendNow}, without waiting. */
    public CompletionStage<RateLimitDecision> spend(RequestLedger ledger, NamedLimit limit, int permits, boolean charge) {
        RateLimitRequest request = namedRequest(ledger, limit, permits, charge);
        if (request == null) {
            return CompletableFuture.completedFuture(null);
        }
        BoundKey[] keys = limit.keys(ledger.plan());
        return store.acquire(ledger.partition(), request, permits).thenApply(d -> record(ledger, request, keys, d));
    }

    private RateLimitRequest namedRequest(RequestLedger ledger, NamedLimit limit, int permits, boolean charge) {
        if (permits < 1) {
            throw new IllegalArgumentException("ratelimit: permits of \"" + limit.name() + "\" must be >= 1, was " + permits);
        }
        RateLimitRequest request = limit.request(ledger.plan(), charge);
        if (request != null && !charge && permits > request.policy(0).permitLimit()) {
            throw new IllegalArgumentException("ratelimit: acquiring " + permits + " permits of \"" + limit.name()
                    + "\" can never succeed: it holds " + request.policy(0).permitLimit()
                    + (ledger.planName() == null ? "" : " for the plan \"" + ledger.planName() + "\""));
        }
        return request;
    }

    /**
     * Gives back every permit the ledger's request spent, once (a refused request spends nothing: SPEC 3).
     * Never blocks; a store that cannot give back is logged by the outage log.
     */
    public void giveBack(RequestLedger ledger) {
        for (RateLimitDecision decision : ledger.takeForRelease()) {
            store.release(decision);
        }
    }

    /**
     * The decision of a stage, waiting for it: at once for a completed stage, else at most the store timeout
     * (the engine's stages are bounded by it) plus a second of grace.
     *
     * @throws RateLimitStoreException when the store failed and the policy is {@code fail}
     */
    public RateLimitDecision await(CompletionStage<RateLimitDecision> stage) {
        CompletableFuture<RateLimitDecision> future = stage.toCompletableFuture();
        try {
            if (future.isDone()) {
                return future.join();
            }
            return future.get(settings.timeoutMillis() + 1_000L, TimeUnit.MILLISECONDS);
        } catch (CompletionException | ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof RateLimitStoreException failed) {
                throw failed;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new RateLimitStoreException("ratelimit: the store failed: " + cause, cause);
        } catch (TimeoutException e) {
            throw new RateLimitStoreException("ratelimit: no decision within " + settings.timeoutMillis() + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RateLimitStoreException("ratelimit: interrupted while waiting for the store", e);
        }
    }

    private RateLimitDecision record(RequestLedger ledger, RateLimitRequest sent, BoundKey[] keys,
                                     RateLimitDecision decision) {
        if (!ledger.record(decision, keys) && decision.allowed()) {
            store.release(decision); // the request has given back everything already: this must not stay spent
        }
        if (decision.request() != sent && settings.onFailure() == OnFailure.ALLOW && store.fallback(decision)) {
            return decision; // the store did not decide: counted as failed already
        }
        boolean allowed = decision.allowed();
        for (int i = 0; i < decision.size(); i++) {
            Outcome outcome = decision.outcome(i);
            BoundKey key = keys[i];
            switch (outcome.state()) {
                case SPENT -> key.count(RateLimitMetrics.Outcome.ALLOWED);
                case UNCOUNTED -> key.count(RateLimitMetrics.Outcome.UNCOUNTED);
                case REFUSED -> {
                    if (decision.request().kind(i) == Kind.ACQUIRE) {
                        key.count(RateLimitMetrics.Outcome.REFUSED);
                    } else if (allowed) {
                        key.count(RateLimitMetrics.Outcome.SHADOW_REFUSED);
                        key.shadow.wouldHaveRefused();
                    }
                }
                default -> {
                    // UNSPENT: another limit refused; this one decided nothing
                }
            }
        }
        return decision;
    }

    private void storeFailed(RateLimitRequest request) {
        for (int i = 0; i < request.size(); i++) {
            BoundKey key = keysByCountKey.get(request.key(i));
            if (key != null) {
                key.count(RateLimitMetrics.Outcome.FAILED);
            }
        }
    }

    /** The plan index of a caller (0: none): the resolver's answer, at most one call. */
    int planOf(RateLimitCaller caller) {
        if (plans.length == 1 || caller == null) {
            return 0;
        }
        String name;
        try {
            name = planResolver.plan(caller);
        } catch (RuntimeException e) {
            planFailures.occurred(n -> "ratelimit: the plan resolver " + planResolver + " failed ("
                    + OutageLog.describe(e) + "; " + n + (n == 1 ? " failure" : " failures")
                    + " since the last such line); those callers get no plan", e);
            return 0;
        }
        if (name == null) {
            return 0;
        }
        Plan plan = plansByName.get(name);
        if (plan == null) {
            planFailures.occurred(n -> "ratelimit: the plan resolver " + planResolver + " answered \"" + name
                    + "\", which " + RateLimitSettings.PLANS + " does not list (" + n + (n == 1 ? " such answer" : " such answers")
                    + " since the last such line); those callers get no plan", null);
            return 0;
        }
        return plan.index();
    }

    String planName(int index) {
        return index == 0 ? null : plans[index].name();
    }

    /** Builds a {@link RateLimitEngine}; not thread-safe. */
    public static final class Builder {
        private final RateLimitSettings settings;
        private final RateLimitStore store;
        private RateLimitPartitioner partitioner;
        private RateLimitPlanResolver planResolver;
        private RateLimitMetrics metrics = RateLimitMetrics.NONE;
        private LongSupplier clock = System::nanoTime;

        private Builder(RateLimitSettings settings, RateLimitStore store) {
            this.settings = Objects.requireNonNull(settings, "settings");
            this.store = Objects.requireNonNull(store, "store");
        }

        /** Default: {@link OrderedPartitioner} on {@code ratelimit.partition-by} and {@code ratelimit.partition-header}. */
        public Builder partitioner(RateLimitPartitioner partitioner) {
            this.partitioner = partitioner;
            return this;
        }

        /** Default: {@link RolePlanResolver} on {@code ratelimit.plans}. */
        public Builder planResolver(RateLimitPlanResolver planResolver) {
            this.planResolver = planResolver;
            return this;
        }

        /** Default: {@link RateLimitMetrics#NONE}. */
        public Builder metrics(RateLimitMetrics metrics) {
            this.metrics = Objects.requireNonNull(metrics, "metrics");
            return this;
        }

        /**
         * The engine's clock, in nanoseconds: the in-process store kept for outages ({@code on-failure=local})
         * counts on it, and the once-a-minute log lines (shadow limits, plan resolver) are spaced by it. Default
         * {@code System::nanoTime}; the store's own clock is the store's business.
         */
        public Builder clock(LongSupplier clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public RateLimitEngine build() {
            return new RateLimitEngine(this);
        }
    }
}
