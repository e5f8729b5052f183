package dev.ratelimit.core.engine;

import dev.ratelimit.core.RateLimitCaller;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitPartitioner;
import dev.ratelimit.core.RateLimitPlanResolver;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.RateLimitStoreException;
import dev.ratelimit.core.address.OrderedPartitioner;
import dev.ratelimit.core.config.OnFailure;
import dev.ratelimit.core.config.Plan;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import java.lang.System.Logger.Level;
import java.lang.reflect.Method;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The one request path (SPEC 16). The Jakarta REST filters, the CDI interceptor and the programmatic API
 * are thin adapters over it: they make a {@link RequestLedger} (the partition, chosen once) and ask
 * {@link #decide} to decide the limits that {@link LimitBinder} bound at deployment. Here, in one place: the
 * plan (at most one resolver call per request), the store call (through the failure policy,
 * {@link GuardedStore}), the record in the ledger, the metrics, the shadow log, and the give-back of a
 * refused request. A call does no lookup by name, reads no configuration and reflects on nothing.
 *
 * <p>Thread-safe: it holds only what the builder gave it; each request's state is its ledger's.
 */
public final class RateLimitEngine {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit");

    /** What {@link #decide} answers when nothing is decided. Completed; never to be completed or obtruded again. */
    private static final CompletableFuture<RateLimitDecision> NOTHING = CompletableFuture.completedFuture(null);

    private final RateLimitSettings settings;
    private final GuardedStore store;
    private final boolean atOnce;
    private final boolean allowOnFailure;
    private final RateLimitPartitioner partitioner;
    private final RateLimitPlanResolver planResolver;
    private final PlanIndex plans;
    private final RateLimitedLog planFailures;
    private final LimitBinder binder;

    private RateLimitEngine(Builder b) {
        this.settings = b.settings;
        this.planFailures = new RateLimitedLog(LOG, Level.WARNING, RateLimitedLog.MINUTE_NANOS, b.clock);
        this.partitioner = b.partitioner != null ? b.partitioner : new OrderedPartitioner(settings.partitionBy(),
                settings.partitionHeader(), settings.clientAddresses());
        this.plans = new PlanIndex(settings.plans());
        this.planResolver = b.planResolver != null ? b.planResolver : new RolePlanResolver(settings.plans());
        this.store = new GuardedStore(b.store, settings.timeoutMillis(), settings.onFailure(),
                settings.maxTrackedPartitions(), b.clock, b.metrics);
        this.atOnce = store.answersAtOnce();
        this.allowOnFailure = settings.onFailure() == OnFailure.ALLOW;
        this.binder = new LimitBinder(settings, store, plans, b.metrics, b.clock);
        if (settings.enabled() && b.metrics.isEnabled()) {
            b.store.register(b.metrics);
        }
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

    /** Deployment: what binds call sites to this engine. */
    public LimitBinder binder() {
        return binder;
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
     * Decides a call site's limits for the ledger's request, and records the decision in the ledger. The one
     * entry point of every adapter: a resource method's limits, a bean method's, the programmatic API's.
     *
     * <p>The answer completes now when the store {@linkplain RateLimitStore#answersAtOnce answers at once} (the
     * in-process store: then nothing waits and no stage is chained), or later, when a remote store answers,
     * always within {@code ratelimit.store.timeout-millis} (the failure policy decides a store that does not
     * answer in time). It completes with the decision, or with null when nothing was decided (no limit applies
     * to the caller's plan, the call site was decided already in this request, or the request is refused
     * already); or exceptionally with {@link RateLimitStoreException} when the store failed and the policy is
     * {@code fail}. {@link DecisionStages#join} reads it on a thread that may wait.
     *
     * @param permits how many times each limit's cost is spent: 1 for a call site; n for n permits of a named
     *                limit ({@link NamedLimit})
     * @throws IllegalArgumentException at once when {@code permits < 1}, or when acquiring them could never
     *                                  succeed (more than an enforced limit holds for the caller's plan)
     */
    public CompletableFuture<RateLimitDecision> decide(RequestLedger ledger, BoundLimits limits, int permits) {
        if (permits < 1) {
            throw new IllegalArgumentException("ratelimit: permits must be >= 1, was " + permits + " (" + limits.where() + ")");
        }
        if (limits.isEmpty() || ledger.refusal() != null || (limits.oncePerRequest() && !ledger.claim(limits))) {
            return NOTHING;
        }
        int plan = limits.countsPerPlan() ? ledger.plan() : 0;
        RateLimitRequest request = limits.request(plan);
        if (request == null) {
            return NOTHING;
        }
        if (permits > 1) {
            checkReachable(ledger, request, permits);
        }
        BoundKey[] keys = limits.keys(plan);
        String partition = ledger.partition();
        if (atOnce) {
            RateLimitDecision decision;
            try {
                decision = store.decide(partition, request, permits);
            } catch (RateLimitStoreException e) {
                count(keys, RateLimitMetrics.Outcome.FAILED);
                return CompletableFuture.failedFuture(e);
            }
            return CompletableFuture.completedFuture(record(ledger, request, keys, decision));
        }
        return store.acquire(partition, request, permits)
                .whenComplete((decision, failure) -> {
                    if (failure != null) {
                        count(keys, RateLimitMetrics.Outcome.FAILED);
                    }
                })
                .thenApply(decision -> record(ledger, request, keys, decision))
                .toCompletableFuture();
    }

    /** An acquire of more permits than an enforced limit holds could never succeed: the caller's mistake. */
    private static void checkReachable(RequestLedger ledger, RateLimitRequest request, int permits) {
        for (int i = 0; i < request.size(); i++) {
            if (request.kind(i) != Kind.CHARGE && (long) request.cost(i) * permits > request.policy(i).permitLimit()) {
                throw new IllegalArgumentException("ratelimit: acquiring " + permits + " permits of \""
                        + request.policy(i).name() + "\" can never succeed: it holds " + request.policy(i).permitLimit()
                        + (ledger.planName() == null ? "" : " for the plan \"" + ledger.planName() + "\""));
            }
        }
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
     * Gives back the permits of one decision of the ledger's request, once: a call that will not go ahead after
     * all (its wait for a reservation was interrupted, SPEC 20). A later give-back of the whole request leaves it
     * out. Never blocks.
     */
    public void giveBack(RequestLedger ledger, RateLimitDecision decision) {
        if (decision.allowed() && ledger.forget(decision)) {
            store.release(decision);
        }
    }

    private RateLimitDecision record(RequestLedger ledger, RateLimitRequest sent, BoundKey[] keys,
                                     RateLimitDecision decision) {
        if (!ledger.record(decision, keys) && decision.allowed()) {
            store.release(decision); // the request has given back everything already: this must not stay spent
        }
        if (allowOnFailure && decision.request() != sent) {
            count(keys, RateLimitMetrics.Outcome.FAILED); // the policy let it through: the store decided nothing
            return decision;
        }
        boolean allowed = decision.allowed();
        for (int i = 0; i < decision.size(); i++) {
            Outcome outcome = decision.outcome(i);
            BoundKey key = keys[i];
            switch (outcome.state()) {
                case SPENT -> {
                    key.count(RateLimitMetrics.Outcome.ALLOWED);
                    if (outcome.waitNanos() > 0) {
                        key.waited(outcome.waitNanos()); // the wait granted: the call goes ahead then
                    }
                }
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

    private static void count(BoundKey[] keys, RateLimitMetrics.Outcome outcome) {
        for (BoundKey key : keys) {
            key.count(outcome);
        }
    }

    /** The plan index of a caller (0: none): the resolver's answer, at most one call. */
    int planOf(RateLimitCaller caller) {
        if (plans.size() == 1 || caller == null) {
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
        Plan plan = plans.named(name);
        if (plan == null) {
            planFailures.occurred(n -> "ratelimit: the plan resolver " + planResolver + " answered \"" + name
                    + "\", which " + RateLimitSettings.PLANS + " does not list (" + n + (n == 1 ? " such answer" : " such answers")
                    + " since the last such line); those callers get no plan", null);
            return 0;
        }
        return plan.index();
    }

    String planName(int index) {
        return plans.name(index);
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

        /** Default: {@link OrderedPartitioner} on {@code ratelimit.partition-by}. */
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
