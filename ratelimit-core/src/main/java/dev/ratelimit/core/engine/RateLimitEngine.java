package dev.ratelimit.core.engine;

import dev.ratelimit.core.RateLimitCaller;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPartitioner;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPlanResolver;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.RateLimitStoreException;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.binding.LimitBinder;
import dev.ratelimit.core.binding.LiveLimits;
import dev.ratelimit.core.binding.NamedLimit;
import dev.ratelimit.core.config.OnFailure;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.guard.GuardedStore;
import dev.ratelimit.core.guard.KeySecretFingerprint;
import dev.ratelimit.core.live.LimitAdmin;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import java.lang.reflect.Method;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The one request path. The Jakarta REST filters, the CDI interceptor and the programmatic API
 * are thin adapters over it: they make a {@link RequestLedger} (the partition, chosen once by {@link Partitions}) and
 * ask {@link #decide} to decide the limits that {@link LimitBinder} bound at deployment. Here, in one place: the
 * plan (at most one resolver call per request, {@link LiveLimits#planOf}), the store call (through the failure policy,
 * {@link GuardedStore}), what the decision leaves behind ({@link DecisionRecords}: the ledger, the metrics, the shadow
 * log), and the give-back of a refused request. A call does no lookup by name, reads no configuration and reflects on
 * nothing.
 *
 * <p>Thread-safe: it holds only what the builder gave it; each request's state is its ledger's.
 *
 * <p>One job: deciding a request's limits and everything that must happen with that decision, in one place, so that
 * no adapter does any of it twice. What is not the decision lives elsewhere: the failure policy
 * ({@link GuardedStore}), binding ({@link LimitBinder}), the partitions ({@link Partitions}), the admin API
 * ({@link LimitAdmin}), live values ({@code dev.ratelimit.core.live.LiveValues}).
 */
public final class RateLimitEngine {

    /** What {@link #decide} answers when nothing is decided. Completed; never to be completed or obtruded again. */
    private static final CompletableFuture<RateLimitDecision> NOTHING = CompletableFuture.completedFuture(null);

    private final RateLimitSettings settings;
    private final GuardedStore store;
    private final boolean atOnce;
    /** Where a part of a call site counts: the caller's partition, the address's, the key's. */
    private final Partitions partitions;
    private final DecisionRecords records;
    private final LimitBinder binder;
    private final LimitAdmin admin;

    private RateLimitEngine(Builder b) {
        this.settings = b.settings;
        this.partitions = new Partitions(settings, b.partitioner);
        this.store = new GuardedStore(b.store, settings, b.clock, b.metrics);
        this.atOnce = store.answersAtOnce();
        this.records = new DecisionRecords(store, settings.onFailure() == OnFailure.ALLOW);
        // a store that counts in this JVM only may digest with a secret of this start; one shared by instances may not
        String sharedWithoutSecret = settings.keySecret() == null && b.store.shared() ? b.store.storeName() : null;
        this.binder = new LimitBinder(settings, store, b.metrics, b.clock, b.refreshing, b.planResolver,
                sharedWithoutSecret);
        if (settings.enabled() && settings.keySecret() != null && b.store.shared()) {
            KeySecretFingerprint.check(b.store, settings.keySecret()); // instances sharing a store digest alike
        }
        if (settings.enabled() && b.metrics.isEnabled()) {
            b.store.register(b.metrics);
        }
        this.admin = new LimitAdmin(binder, partitions.argumentKeys());
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
        binder.apply(Objects.requireNonNull(next, "next")); // the guard forgets refusals: a raised limit lets them in
    }

    /** {@link #apply} without putting anything in force: throws as it would. */
    public void check(RateLimitSettings next) {
        binder.check(Objects.requireNonNull(next, "next"));
    }

    /**
     * Shuts the engine down: the unused permits of every slice go back to the store (one call each, not waited for),
     * and no slice is taken again (docs/stores.md, "Exact or sliced"). Requests may still be decided afterwards, by the
     * store. Idempotent.
     */
    public void close() {
        store.close();
    }

    /**
     * The store guard: the failure policy, refusals answered at home and slices around the store (tests, and the
     * engine's own packages). Not an API.
     */
    public GuardedStore guard() {
        return store;
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
        return new RequestLedger(binder.live(), caller, partitions.ofCaller(caller), resourceMethod);
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
        return decide(ledger, limits, permits, Partitions.NO_KEY);
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
            plan = newer.countsPerPlan() ? newer.planIndexOf(live, ledger.plan()) : 0;
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
        String partition = part.per == RateLimitPer.CALLER ? ledger.partition() : partitions.of(ledger, limits, part, key);
        if (atOnce) {
            RateLimitDecision decision;
            try {
                decision = store.decide(partition, request, permits);
            } catch (RateLimitStoreException e) {
                DecisionRecords.count(part.keys, RateLimitMetrics.Outcome.FAILED);
                return CompletableFuture.failedFuture(e);
            }
            return CompletableFuture.completedFuture(records.record(ledger, request, part, null, decision));
        }
        RateLimitDecision home = store.atHome(partition, request, permits); // a slice's (docs/stores.md)
        if (home != null) {
            return CompletableFuture.completedFuture(records.record(ledger, request, part, null, home));
        }
        return store.acquire(partition, request, permits, true)
                .whenComplete((decision, failure) -> {
                    if (failure != null) {
                        DecisionRecords.count(part.keys, RateLimitMetrics.Outcome.FAILED);
                    }
                })
                .thenApply(decision -> records.record(ledger, request, part, null, decision))
                .toCompletableFuture();
    }

    /**
     * Decides a call site's parts one after another, each in its own partition: a part is decided once the one before
     * it allowed the call; a refusal (or a store failure) gives back what the parts before it spent.
     */
    private CompletableFuture<RateLimitDecision> decideParts(RequestLedger ledger, BoundLimits limits,
                                                             LiveLimits.Part first, int permits, Object key) {
        return decidePart(ledger, first, null, permits, partitions.ofArgumentIn(limits, first, key));
    }

    private CompletableFuture<RateLimitDecision> decidePart(RequestLedger ledger, LiveLimits.Part part,
                                                            RateLimitDecision previous, int permits, String argument) {
        String partition = partitions.of(ledger, part, argument);
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
            return next(ledger, part, previous, permits, argument, records.record(ledger, request, part, previous, decided.join()));
        }
        return decided.handle((decision, failure) -> {
            if (failure != null) {
                DecisionRecords.count(part.keys, RateLimitMetrics.Outcome.FAILED);
                giveBackCall(ledger, previous);
                return CompletableFuture.<RateLimitDecision>failedFuture(DecisionStages.cause(failure));
            }
            return next(ledger, part, previous, permits, argument, records.record(ledger, request, part, previous, decision));
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

        /** Default: {@link dev.ratelimit.core.address.OrderedPartitioner} on {@code ratelimit.partition-by}. */
        public Builder partitioner(RateLimitPartitioner partitioner) {
            this.partitioner = partitioner;
            return this;
        }

        /** Default: {@link dev.ratelimit.core.binding.RolePlanResolver} on {@code ratelimit.plans}. */
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
