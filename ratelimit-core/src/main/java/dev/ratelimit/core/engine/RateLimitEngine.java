package dev.ratelimit.core.engine;

import dev.ratelimit.core.RateLimitCaller;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitPartitioner;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPlanResolver;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.RateLimitStoreException;
import dev.ratelimit.core.address.AddressedCaller;
import dev.ratelimit.core.address.ClientAddresses;
import dev.ratelimit.core.address.OrderedPartitioner;
import dev.ratelimit.core.config.OnFailure;
import dev.ratelimit.core.config.Plan;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.log.LogText;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import java.lang.System.Logger.Level;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The one request path. The Jakarta REST filters, the CDI interceptor and the programmatic API
 * are thin adapters over it: they make a {@link RequestLedger} (the partition, chosen once) and ask
 * {@link #decide} to decide the limits that {@link LimitBinder} bound at deployment. Here, in one place: the
 * plan (at most one resolver call per request), the store call (through the failure policy,
 * {@link GuardedStore}), the record in the ledger, the metrics, the shadow log, and the give-back of a
 * refused request. A call does no lookup by name, reads no configuration and reflects on nothing.
 *
 * <p>Thread-safe: it holds only what the builder gave it; each request's state is its ledger's.
 *
 * <p>One job, over 400 lines: deciding a request's limits and everything that must happen with that decision, in
 * one place, so that no adapter does any of it twice. What is not the decision lives elsewhere: the failure policy
 * ({@link GuardedStore}), binding ({@link LimitBinder}), the admin API ({@link LimitAdmin}), live values
 * ({@link LiveValues}).
 */
public final class RateLimitEngine {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit");

    /** What {@link #decide} answers when nothing is decided. Completed; never to be completed or obtruded again. */
    private static final CompletableFuture<RateLimitDecision> NOTHING = CompletableFuture.completedFuture(null);

    /** The key of a call that has none to give: a limit per argument then fails, naming itself. */
    private static final Object NO_KEY = new Object();

    private final RateLimitSettings settings;
    private final GuardedStore store;
    private final boolean atOnce;
    private final boolean allowOnFailure;
    private final RateLimitPartitioner partitioner;
    /** The application's own plan resolver, or null: then each configuration's default ({@link LiveLimits#roles}). */
    private final RateLimitPlanResolver planResolver;
    private final RateLimitedLog planFailures;
    private final LimitBinder binder;
    private final LimitAdmin admin;
    /** The partitions of limits per argument: digests keyed by {@code ratelimit.key-secret}. */
    private final ArgumentKeys argumentKeys;

    private RateLimitEngine(Builder b) {
        this.settings = b.settings;
        this.planFailures = new RateLimitedLog(LOG, Level.WARNING, RateLimitedLog.MINUTE_NANOS, b.clock);
        this.partitioner = b.partitioner != null ? b.partitioner : new OrderedPartitioner(settings.partitionBy(),
                settings.partitionHeader(), settings.clientAddresses());
        this.planResolver = b.planResolver;
        this.store = new GuardedStore(b.store, settings, b.clock, b.metrics);
        this.atOnce = store.answersAtOnce();
        this.allowOnFailure = settings.onFailure() == OnFailure.ALLOW;
        this.argumentKeys = ArgumentKeys.of(settings.keySecret());
        // a store that counts in this JVM only may digest with a secret of this start; one shared by instances may not
        String sharedWithoutSecret = settings.keySecret() == null && !(b.store instanceof InProcessRateLimitStore)
                ? b.store.storeName() : null;
        this.binder = new LimitBinder(this, settings, store, b.metrics, b.clock, b.refreshing, b.planResolver,
                sharedWithoutSecret);
        if (settings.enabled() && settings.keySecret() != null && !(b.store instanceof InProcessRateLimitStore)) {
            KeySecretFingerprint.check(b.store, settings.keySecret()); // instances sharing a store digest alike
        }
        if (settings.enabled() && b.metrics.isEnabled()) {
            b.store.register(b.metrics);
        }
        this.admin = new LimitAdmin(binder);
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

    /** The settings the application started with (live values: {@link #liveSettings()}). */
    public RateLimitSettings settings() {
        return settings;
    }

    /** The settings in force now: those at start-up, or the last configuration that live values applied. */
    public RateLimitSettings liveSettings() {
        return binder.live().settings;
    }

    /**
     * Live values: puts {@code next} in force from the next request. Counts are kept (a count adopts a new
     * permit limit with its permits spent; a new window or algorithm starts it afresh, logged).
     *
     * @throws dev.ratelimit.core.InvalidRateLimitException (or {@code IllegalArgumentException}) naming the key or
     *         the call site that {@code next} makes invalid; then nothing changes
     */
    public void apply(RateLimitSettings next) {
        binder.apply(Objects.requireNonNull(next, "next"));
        store.forgetRefusals(); // a raised limit must let a refused caller in at once
    }

    /** {@link #apply} without putting anything in force: throws as it would. */
    public void check(RateLimitSettings next) {
        binder.check(Objects.requireNonNull(next, "next"));
    }

    /** The admin API: the effective limits, one caller's count, a reset, the most refused. */
    public LimitAdmin admin() {
        return admin;
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
        return new RequestLedger(binder.live(), caller, partition, resourceMethod);
    }

    /** A ledger for a call with an explicit partition and no caller (no plan). */
    public RequestLedger ledger(String partition) {
        return new RequestLedger(binder.live(), null, Objects.requireNonNull(partition, "partition"), null);
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
        return decide(ledger, limits, permits, NO_KEY);
    }

    /**
     * {@link #decide(RequestLedger, BoundLimits, int)} for a call with a key: its limits per argument count in the
     * partition of the key's value ({@code arg:<digest>}; normalised unless the call site's key is exact). When the
     * call site's limits count in several partitions or count only failures in some, they are decided one part after
     * another; a refusal by one gives back what the parts before it spent, and the answer is the refusing decision, or
     * the last part's when every part allowed the call.
     *
     * @param key the argument that the call site's {@code @RateLimitKey} marks ({@link BoundLimits#keyPosition}), or
     *            the key the programmatic API was given; null counts as the empty value
     * @throws IllegalArgumentException as {@link #decide(RequestLedger, BoundLimits, int)}
     */
    public CompletableFuture<RateLimitDecision> decide(RequestLedger ledger, BoundLimits limits, int permits,
                                                       Object key) {
        if (permits < 1) {
            throw new IllegalArgumentException("ratelimit: permits must be >= 1, was " + permits + " (" + limits.where() + ")");
        }
        if (limits.isEmpty() || ledger.refusal() != null) {
            return NOTHING;
        }
        LiveLimits live = ledger.live();
        int index = limits.index();
        int plan;
        if (index < live.sites.length) {
            if (live.sites[index].empty || (limits.oncePerRequest() && !ledger.claim(limits))) {
                return NOTHING;
            }
            plan = live.countsPerPlan() ? ledger.plan() : 0;
        } else {
            // bound after the request read its configuration (a named limit's first use): the newest has it
            LiveLimits newer = binder.live();
            if (newer.sites[index].empty || (limits.oncePerRequest() && !ledger.claim(limits))) {
                return NOTHING;
            }
            plan = newer.countsPerPlan() ? planIn(newer, live, ledger.plan()) : 0;
            live = newer;
        }
        LiveLimits.Site site = live.sites[index];
        LiveLimits.Part part = plan < 0 ? null : site.byPlan[plan];
        if (part == null) {
            return NOTHING;
        }
        if (permits > 1) {
            checkReachable(ledger, part, permits);
        }
        if (part.next != null) {
            return decideParts(ledger, limits, part, permits, key);
        }
        // the common case: one part, in the ledger's partition (or the key's, or the address's)
        RateLimitRequest request = part.request;
        String partition = part.per == RateLimitPer.CALLER ? ledger.partition() : partition(ledger, limits, part, key);
        if (atOnce) {
            RateLimitDecision decision;
            try {
                decision = store.decide(partition, request, permits);
            } catch (RateLimitStoreException e) {
                count(part.keys, RateLimitMetrics.Outcome.FAILED);
                return CompletableFuture.failedFuture(e);
            }
            return CompletableFuture.completedFuture(record(ledger, request, part, null, decision));
        }
        return store.acquire(partition, request, permits)
                .whenComplete((decision, failure) -> {
                    if (failure != null) {
                        count(part.keys, RateLimitMetrics.Outcome.FAILED);
                    }
                })
                .thenApply(decision -> record(ledger, request, part, null, decision))
                .toCompletableFuture();
    }

    /**
     * Decides a call site's parts one after another, each in its own partition: a part is decided once the one before
     * it allowed the call; a refusal (or a store failure) gives back what the parts before it spent.
     */
    private CompletableFuture<RateLimitDecision> decideParts(RequestLedger ledger, BoundLimits limits,
                                                             LiveLimits.Part first, int permits, Object key) {
        String argument = null;
        for (LiveLimits.Part p = first; p != null; p = p.next) {
            if (p.per == RateLimitPer.ARGUMENT) {
                argument = partition(ledger, limits, p, key); // one digest per call
                break;
            }
        }
        return decidePart(ledger, first, null, permits, argument);
    }

    /** The partition of a part that counts per address or per argument (then {@code key}'s digest). */
    private String partition(RequestLedger ledger, BoundLimits limits, LiveLimits.Part part, Object key) {
        if (part.per == RateLimitPer.ADDRESS) {
            return address(ledger);
        }
        if (key == NO_KEY) {
            throw new IllegalArgumentException("ratelimit: the limit \"" + part.request.policy(0).name()
                    + "\" counts per argument: give the key whose count it spends (" + limits.where() + ")");
        }
        return argumentKeys.partition(key, limits.exactKey());
    }

    private CompletableFuture<RateLimitDecision> decidePart(RequestLedger ledger, LiveLimits.Part part,
                                                            RateLimitDecision previous, int permits, String argument) {
        String partition = switch (part.per) {
            case ADDRESS -> address(ledger);
            case ARGUMENT -> argument;
            default -> ledger.partition();
        };
        RateLimitRequest request = part.request;
        CompletableFuture<RateLimitDecision> decided;
        if (atOnce) {
            try {
                decided = CompletableFuture.completedFuture(store.decide(partition, request, permits));
            } catch (RateLimitStoreException e) {
                decided = CompletableFuture.failedFuture(e);
            }
        } else {
            decided = store.acquire(partition, request, permits).toCompletableFuture();
        }
        if (decided.isDone() && !decided.isCompletedExceptionally()) {
            return next(ledger, part, previous, permits, argument, record(ledger, request, part, previous, decided.join()));
        }
        return decided.handle((decision, failure) -> {
            if (failure != null) {
                count(part.keys, RateLimitMetrics.Outcome.FAILED);
                giveBackCall(ledger, previous);
                return CompletableFuture.<RateLimitDecision>failedFuture(DecisionStages.cause(failure));
            }
            return next(ledger, part, previous, permits, argument, record(ledger, request, part, previous, decision));
        }).thenCompose(stage -> stage);
    }

    /** After one part's decision: the next part, or the answer. */
    private CompletableFuture<RateLimitDecision> next(RequestLedger ledger, LiveLimits.Part part,
                                                      RateLimitDecision previous, int permits, String argument,
                                                      RateLimitDecision decision) {
        if (!decision.allowed()) {
            giveBackCall(ledger, previous);
            return CompletableFuture.completedFuture(decision);
        }
        return part.next == null ? CompletableFuture.completedFuture(decision)
                : decidePart(ledger, part.next, decision, permits, argument);
    }

    /** Gives back the decisions of one call's earlier parts: from {@code last} back to its first. */
    private void giveBackCall(RequestLedger ledger, RateLimitDecision last) {
        for (RateLimitDecision d = last; d != null; d = ledger.earlierInCall(d)) {
            giveBack(ledger, d);
        }
    }

    /**
     * The partition of a limit per address: the caller's client as {@code ratelimit.partition-by=address} finds it,
     * {@code addr:unknown} outside an HTTP request or where the runtime cannot tell.
     */
    private String address(RequestLedger ledger) {
        RateLimitCaller caller = ledger.caller();
        if (caller instanceof AddressedCaller addressed) {
            return addressed.resolvedClient().partition();
        }
        InetAddress client = caller == null ? null : caller.clientAddress();
        return client == null ? ClientAddresses.UNKNOWN : settings.clientAddresses().partition(client);
    }

    /**
     * A call went well: its parts that count only failures, and that its outcome judges (a bean method's return
     * without an exception, a stage or a {@code Uni} that completes), give their permits back. Never blocks; the
     * ledger's headers show the permits back.
     *
     * @param decision what {@link #decide} answered for the call; null: nothing
     */
    public void succeeded(RequestLedger ledger, RateLimitDecision decision) {
        for (RateLimitDecision d = decision; d != null && d.allowed(); d = ledger.earlierInCall(d)) {
            if (ledger.settle(d, false)) {
                store.release(d);
            }
        }
    }

    /**
     * The response of a request is known: each part of its resource method's limits (or of the programmatic API's)
     * that counts only failures gives its permits back when {@code status} is not one of its failures. Never blocks.
     *
     * @param status the final status of the request's response
     */
    public void settle(RequestLedger ledger, int status) {
        for (RateLimitDecision d : ledger.succeededBy(status)) {
            store.release(d);
        }
    }

    /** An acquire of more permits than an enforced limit holds could never succeed: the caller's mistake. */
    private static void checkReachable(RequestLedger ledger, LiveLimits.Part part, int permits) {
        for (LiveLimits.Part p = part; p != null; p = p.next) {
            RateLimitRequest request = p.request;
            for (int i = 0; i < request.size(); i++) {
                if (request.kind(i) != Kind.CHARGE && (long) request.cost(i) * permits > request.policy(i).permitLimit()) {
                    throw new IllegalArgumentException("ratelimit: acquiring " + permits + " permits of \""
                            + request.policy(i).name() + "\" can never succeed: it holds " + request.policy(i).permitLimit()
                            + (ledger.planName() == null ? "" : " for the plan \"" + ledger.planName() + "\""));
                }
            }
        }
    }

    /**
     * Gives back every permit the ledger's request spent, once (a refused request spends nothing).
     * Never blocks; a store that cannot give back is logged by the outage log.
     */
    public void giveBack(RequestLedger ledger) {
        for (RateLimitDecision decision : ledger.takeForRelease()) {
            store.release(decision);
        }
    }

    /**
     * Gives back the permits of one decision of the ledger's request, once: a call that will not go ahead after
     * all (its wait for a reservation was interrupted). A later give-back of the whole request leaves it
     * out. Never blocks.
     */
    public void giveBack(RequestLedger ledger, RateLimitDecision decision) {
        if (decision.allowed() && ledger.forget(decision)) {
            store.release(decision);
        }
    }

    private RateLimitDecision record(RequestLedger ledger, RateLimitRequest sent, LiveLimits.Part part,
                                     RateLimitDecision earlier, RateLimitDecision decision) {
        BoundKey[] keys = part.keys;
        if (!ledger.record(decision, part, earlier) && decision.allowed()) {
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
                        key.refusals.refused(decision.partition());
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

    /** The index in {@code to} of the plan at {@code index} in {@code from} (-1: gone). */
    private static int planIn(LiveLimits to, LiveLimits from, int index) {
        if (to.plans == from.plans || index == 0) {
            return index;
        }
        Plan plan = to.plans.named(from.plans.name(index));
        return plan == null ? -1 : plan.index();
    }

    /** The plan index of a caller (0: none) in {@code live}'s plans: the resolver's answer, at most one call. */
    int planOf(LiveLimits live, RateLimitCaller caller) {
        PlanIndex plans = live.plans;
        if (plans.size() == 1 || caller == null) {
            return 0;
        }
        RateLimitPlanResolver planResolver = this.planResolver != null ? this.planResolver : live.roles;
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
            planFailures.occurred(n -> "ratelimit: the plan resolver " + planResolver + " answered " + LogText.quoted(name)
                    + ", which " + RateLimitSettings.PLANS + " does not list (" + n + (n == 1 ? " such answer" : " such answers")
                    + " since the last such line); those callers get no plan", null);
            return 0;
        }
        return plan.index();
    }

    /** The partitions of limits per argument. */
    ArgumentKeys argumentKeys() {
        return argumentKeys;
    }

    String planName(LiveLimits live, int index) {
        return live.plans.name(index);
    }

    /** Builds a {@link RateLimitEngine}; not thread-safe. */
    public static final class Builder {
        private final RateLimitSettings settings;
        private final RateLimitStore store;
        private RateLimitPartitioner partitioner;
        private RateLimitPlanResolver planResolver;
        private RateLimitMetrics metrics = RateLimitMetrics.NONE;
        private LongSupplier clock = System::nanoTime;
        private boolean refreshing;

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

        /**
         * True when the configuration is read again while the application runs ({@code ratelimit.limits-file},
         * {@code ratelimit.refresh-seconds}): then a call site whose limits are all off now is bound all the same, and
         * the global limit can be set later. Default false.
         */
        public Builder refreshing(boolean refreshing) {
            this.refreshing = refreshing;
            return this;
        }

        public RateLimitEngine build() {
            return new RateLimitEngine(this);
        }
    }
}
