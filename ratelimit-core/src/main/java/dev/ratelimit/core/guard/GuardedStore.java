package dev.ratelimit.core.guard;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.CountState;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.RateLimitStoreException;
import dev.ratelimit.core.config.OnFailure;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import dev.ratelimit.core.metrics.RateLimitMetrics.StoreOutcome;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * The failure policy, one decorator around any store (docs/stores.md, "When the store fails"): it decides when the
 * store's answer is not to be had, and hands the call to the policy then. Every call is decided within
 * {@code ratelimit.store.timeout-millis}, and when the store fails, throws, or does not answer in time,
 * {@code ratelimit.store.on-failure} decides: {@code fail} (the call fails with
 * {@link RateLimitStoreException}), {@code allow} (uncounted), {@code local} (an in-process store kept for
 * outages); what {@code allow} and {@code local} answer is {@link PolicyDecisions}'. One warning per outage, one line
 * on recovery ({@link OutageLog}). It is a {@link RateLimitStore} like the one it guards, and answers at once exactly
 * when that one does.
 *
 * <p>Around a store that does not answer at once, two things spare the store and the caller: an outage
 * costs one timeout ({@link OutageBreaker}: once the store could not be reached, calls get the policy at once for
 * {@code ratelimit.store.retry-millis}, then one probes), and a store shared by several instances that announces what
 * they do to its counts has its refusals answered here until they run out ({@link RefusalMemory}; also during an
 * outage: they still hold).
 *
 * <p>A store that never answers costs no thread and no timer of its own: calls wait in one queue, in the order of
 * their deadlines, watched by one task on the JDK's shared delay scheduler ({@link StoreDeadlines}). A store that answers
 * after the timeout has its permits given back at once: the policy decided that call, so the store's late decision
 * must not stay spent. A store that answers at once is called without a stage or a timer.
 *
 * <p>The library's internals, public for its other packages: not an API.
 */
public final class GuardedStore implements RateLimitStore {

    final RateLimitStore delegate;
    private final boolean atOnce;
    final long timeoutNanos;
    private final OnFailure onFailure;
    private final PolicyDecisions decisions;
    final OutageLog outage;
    final OutageBreaker breaker;
    /** Null when refusals are not remembered: the store answers at once, announces nothing, or the memory is off. */
    final RefusalMemory memory;
    /** Null when nothing is sliced: the store answers at once, cannot slice, announces nothing, or no limit asks. */
    final Slices slices;
    private final LongSupplier clock;
    private final StoreDeadlines deadlines;
    final boolean timed;
    final RateLimitMetrics.Timer decided;
    private final RateLimitMetrics.Timer failed;
    private final RateLimitMetrics.Timer timedOut;
    /** The counters of refusals answered at home; null without a memory. */
    private final RefusedAtHome refusedAtHome;

    /**
     * @param delegate the store
     * @param settings its timeout, failure policy, retry time, refusal memory; the local store's size
     * @param clock    the engine's clock, in nanoseconds: of the local store, the outage's retry and the memory
     * @param metrics  the store durations
     */
    public GuardedStore(RateLimitStore delegate, RateLimitSettings settings, LongSupplier clock, RateLimitMetrics metrics) {
        this.delegate = delegate;
        this.atOnce = delegate.answersAtOnce();
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(settings.timeoutMillis());
        this.onFailure = settings.onFailure();
        this.decisions = new PolicyDecisions(onFailure, settings.maxTrackedPartitions(), clock);
        this.outage = new OutageLog("the store " + delegate, switch (onFailure) {
            case FAIL -> "calls fail (a request gets 500) (ratelimit.store.on-failure=fail)";
            case ALLOW -> "calls are let through uncounted (ratelimit.store.on-failure=allow)";
            case LOCAL -> "each instance counts alone, in process (ratelimit.store.on-failure=local)";
        });
        this.clock = clock;
        this.breaker = new OutageBreaker(atOnce ? 0 : settings.retryMillis(), clock);
        RefusalMemory memory = null;
        Slices slices = null;
        if (!atOnce && settings.enabled()) {
            RefusalMemory candidate = settings.refusalMemoryMillis() > 0
                    ? new RefusalMemory(settings.refusalMemoryMillis(), settings.maxTrackedPartitions(), clock) : null;
            Slices sliced = delegate.slices()
                    ? new Slices(delegate, settings, clock, metrics, this::giveBackSlice) : null;
            RateLimitStore.CountListener listener = candidate == null ? sliced : sliced == null ? candidate
                    : new BothListeners(candidate, sliced);
            if (listener != null && delegate.announceTo(listener)) {
                memory = candidate;
                slices = sliced;
            }
        }
        this.memory = memory;
        this.slices = slices;
        this.deadlines = atOnce ? null : new StoreDeadlines(timeoutNanos);
        this.timed = metrics.isEnabled();
        String name = delegate.storeName();
        this.decided = metrics.storeDuration(name, StoreOutcome.DECIDED);
        this.failed = metrics.storeDuration(name, StoreOutcome.FAILED);
        this.timedOut = metrics.storeDuration(name, StoreOutcome.TIMEOUT);
        this.refusedAtHome = memory == null ? null : new RefusedAtHome(metrics);
        metrics.breaker(name, breaker::isOpen);
    }

    @Override
    public Object bind(CountKey key) {
        Object handle = delegate.bind(key);
        decisions.bind(key);
        if (refusedAtHome != null) {
            refusedAtHome.bind(key);
        }
        return handle;
    }

    @Override
    public boolean answersAtOnce() {
        return atOnce;
    }

    /** The store's own answer, bounded by the timeout; no failure policy (an operator asked: tell them). */
    @Override
    public CompletionStage<CountState> inspect(String partition, RateLimitRequest request) {
        return bounded(delegate.inspect(partition, request));
    }

    /**
     * The store's own answer, bounded by the timeout; no failure policy (an operator asked: tell them). What this
     * instance remembered of the count is forgotten once it is done.
     */
    @Override
    public CompletionStage<Void> restart(String partition, RateLimitRequest request) {
        CountKey key = request.key(0);
        if (slices != null) {
            slices.gained(key.name(), key.plan(), key.partition(partition)); // this instance's slices of it: dropped
        }
        CompletionStage<Void> restarted = bounded(delegate.restart(partition, request));
        if (memory == null && slices == null) {
            return restarted;
        }
        return restarted.thenRun(() -> {
            if (memory != null) {
                memory.gained(key.name(), key.plan(), key.partition(partition));
            }
            if (slices != null) {
                slices.gained(key.name(), key.plan(), key.partition(partition)); // a slice taken meanwhile, too
            }
        });
    }

    private <T> CompletionStage<T> bounded(CompletionStage<T> stage) {
        return atOnce ? stage : stage.toCompletableFuture().copy().orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    /** @throws RateLimitStoreException when the store failed and the policy is {@code fail} */
    @Override
    public RateLimitDecision decide(String partition, RateLimitRequest request, int multiple) {
        long start = timed ? System.nanoTime() : 0;
        RateLimitDecision decision;
        try {
            decision = delegate.decide(partition, request, multiple);
        } catch (RuntimeException e) {
            return fallback(partition, request, multiple, e, start, true);
        }
        if (timed) {
            decided.record(System.nanoTime() - start);
        }
        outage.answered();
        return decision;
    }

    @Override
    public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
        return acquire(partition, request, multiple, false);
    }

    /**
     * The request decided at home, from this instance's slice of its count (docs/stores.md, "Exact or sliced"), on the
     * caller's thread; null when it is not (not sliced, no slice, or the slice cannot answer it): then
     * {@link #acquire(String, RateLimitRequest, int, boolean)} with {@code askedAtHome} true decides it.
     */
    public RateLimitDecision atHome(String partition, RateLimitRequest request, int multiple) {
        Slices slices = this.slices;
        if (slices == null) {
            return null;
        }
        long now = clock.getAsLong();
        Slice slice = slices.slice(partition, request, multiple, true, now);
        return slice == null ? null : slices.atHome(slice, partition, request, multiple, now);
    }

    /**
     * {@link #acquire(String, RateLimitRequest, int)}; {@code askedAtHome}: {@link #atHome} answered null for this
     * request just now (its slice is not asked again, nor the request counted twice).
     */
    public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple,
                                                      boolean askedAtHome) {
        if (atOnce) {
            try {
                return CompletableFuture.completedFuture(decide(partition, request, multiple));
            } catch (RateLimitStoreException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        Slices slices = this.slices;
        Slice slice = null;
        if (slices != null) {
            long now = clock.getAsLong();
            slice = slices.slice(partition, request, multiple, !askedAtHome, now);
            if (slice != null) {
                if (!askedAtHome) {
                    RateLimitDecision home = slices.atHome(slice, partition, request, multiple, now);
                    if (home != null) {
                        return CompletableFuture.completedFuture(home);
                    }
                }
                slice.site.atStore();
            }
        }
        RefusalMemory memory = this.memory;
        long sentAt = 0;
        long ticket = -1;
        if (memory != null) {
            RateLimitDecision remembered = memory.answer(partition, request, multiple);
            if (remembered != null) {
                refusedAtHome.count(remembered);
                return CompletableFuture.completedFuture(remembered);
            }
            ticket = memory.ticket();
            sentAt = ticket < 0 ? 0 : clock.getAsLong();
        }
        if (!breaker.mayCall()) {
            return answer(fallbackOrFailure(partition, request, multiple, breaker.cause(), 0, false));
        }
        int asked = multiple;
        long sliceTicket = 0;
        if (slice != null) {
            asked = slices.size(slice, request, multiple);
            sliceTicket = slices.ticket(slice);
            if (sentAt == 0) {
                sentAt = clock.getAsLong();
            }
        }
        long start = timed ? System.nanoTime() : 0;
        CompletionStage<RateLimitDecision> stage;
        try {
            stage = delegate.acquire(partition, request, asked);
            if (stage == null) {
                throw new IllegalStateException(delegate + " answered null");
            }
        } catch (RuntimeException e) {
            if (asked != multiple) {
                slices.untaken(slice);
            }
            if (delegate.unreachable(e)) {
                breaker.unreachable(e);
            }
            return answer(fallbackOrFailure(partition, request, multiple, e, start, true));
        }
        StoreCall call = new StoreCall(this, partition, request, multiple, start, sentAt, ticket);
        if (slice != null) {
            call.sliced(slice, asked, sliceTicket);
        }
        stage.whenComplete(call);
        if (!call.isDone()) {
            deadlines.watch(call);
        }
        return call;
    }

    /** A stage completed with what {@link #fallbackOrFailure} answered. */
    private static CompletionStage<RateLimitDecision> answer(Object decided) {
        return decided instanceof RateLimitDecision d ? CompletableFuture.completedFuture(d)
                : CompletableFuture.failedFuture((Throwable) decided);
    }

    /** {@link #fallback}: its decision, or the {@link RateLimitStoreException} it threw. */
    Object fallbackOrFailure(String partition, RateLimitRequest request, int multiple, Throwable cause, long start,
                                     boolean called) {
        try {
            return fallback(partition, request, multiple, cause, start, called);
        } catch (RateLimitStoreException e) {
            return e;
        }
    }

    @Override
    public CompletionStage<Void> release(RateLimitDecision decision) {
        if (decisions.giveBack(decision)) { // the policy decided it: nothing of it is in the store
            return CompletableFuture.completedFuture(null);
        }
        CompletionStage<Void> stage;
        try {
            stage = delegate.release(decision);
        } catch (RuntimeException e) {
            outage.failed("the give-back of " + decision.request(), e);
            return CompletableFuture.failedFuture(e);
        }
        return givenBack(stage, decision, false);
    }

    /**
     * After a give-back: its counts are no longer remembered refusing; a failure is logged (an unreachable store opens
     * the breaker). {@code slice}: the unused part of a slice, not a request's permits.
     */
    private CompletionStage<Void> givenBack(CompletionStage<Void> stage, RateLimitDecision decision, boolean slice) {
        return stage.whenComplete((done, failure) -> {
            if (failure == null) {
                outage.answered();
                if (memory != null) {
                    forgetSpent(decision);
                }
            } else {
                Throwable cause = unwrap(failure);
                if (delegate.unreachable(cause)) {
                    breaker.unreachable(cause);
                }
                outage.failed("the give-back of " + (slice ? "a slice of " : "") + decision.request(), cause);
            }
        });
    }

    /** What the decision gave back, gained: the counts it spent from are no longer remembered refusing. */
    private void forgetSpent(RateLimitDecision decision) {
        for (int i = 0; i < decision.size(); i++) {
            if (decision.outcome(i).spent()) {
                CountKey key = decision.request().key(i);
                memory.gained(key.name(), key.plan(), key.partition(decision.partition()));
            }
        }
    }

    /** The limits' values changed (live values): what was remembered for them may no longer hold. */
    public void forgetRefusals() {
        if (memory != null) {
            memory.forgetAll();
        }
    }

    /**
     * New values are in force (live values): what was remembered is forgotten, every slice gives back its unused part
     * and is forgotten, and which limits are sliced is read from {@code next}.
     */
    public void valuesChanged(RateLimitSettings next) {
        forgetRefusals();
        if (slices != null) {
            slices.valuesChanged(next);
        }
    }

    /** The engine shuts down: every slice gives back its unused part, and none is taken again. */
    public void close() {
        if (slices != null) {
            slices.close();
        }
    }

    /**
     * Gives back the unused part of every slice whose lease ended, and forgets slices idle for two leases, at the
     * clock's reading now: what the sweep on the JDK's delay scheduler does every lease (tests move their clock and call
     * it). 0 when nothing is sliced.
     *
     * @return the slices held now
     */
    public int sweepSlices() {
        if (slices == null) {
            return 0;
        }
        slices.sweep(clock.getAsLong());
        return slices.size();
    }

    /** True when requests of sliced limits may be decided in slices: the store slices and its announcements are heard. */
    public boolean slicing() {
        return slices != null && slices.listening();
    }

    /** The unused part of a slice goes back: one store call; its counts are no longer remembered refusing. */
    private void giveBackSlice(RateLimitDecision taken, int units) {
        CompletionStage<Void> stage;
        try {
            stage = delegate.release(taken, units);
        } catch (RuntimeException e) {
            outage.failed("the give-back of a slice of " + taken.request(), e);
            return;
        }
        givenBack(stage, taken, true);
    }

    /**
     * How many partitions' refusals the guard remembers now ({@code ratelimit.max-tracked-partitions} at most); 0 when
     * it remembers none (a store that answers at once, or one that announces nothing).
     */
    public int refusalsRemembered() {
        return memory == null ? 0 : memory.size();
    }

    @Override
    public String storeName() {
        return delegate.storeName();
    }

    /** What the policy does, for the start-up line. */
    public String policy() {
        return "timeout " + timeoutNanos / 1_000_000 + " ms, on failure " + onFailure.name().toLowerCase(Locale.ROOT)
                + (atOnce ? "" : ", retry after " + breaker.retryMillis() + " ms, refusals remembered "
                + (memory == null ? "never" : "up to " + memory.longestMillis() + " ms"));
    }

    @Override
    public String toString() {
        return delegate.toString();
    }

    /**
     * @param start when the store was called ({@code System.nanoTime()}, for its duration), or any value when
     *              {@code called} is false
     * @param called false for a call that went without the store (an outage): no duration, nothing new to log
     */
    private RateLimitDecision fallback(String partition, RateLimitRequest request, int multiple, Throwable cause,
                                       long start, boolean called) {
        boolean timeout = cause instanceof TimeoutException;
        if (timed && called) {
            (timeout ? timedOut : failed).record(System.nanoTime() - start);
        }
        Throwable reported = timeout && called
                ? new TimeoutException("no answer within " + timeoutNanos / 1_000_000 + " ms") : cause;
        outage.failed(request.toString(), reported);
        switch (onFailure) {
            case ALLOW -> {
                return decisions.allow(partition, request, multiple);
            }
            case LOCAL -> {
                return decisions.local(partition, request, multiple);
            }
            default -> throw new RateLimitStoreException("ratelimit: the store " + delegate + " could not decide "
                    + request + ": " + (called ? "" : "unreachable for the last " + breaker.retryMillis()
                    + " ms or less, last ") + OutageLog.describe(reported), reported);
        }
    }

    static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
