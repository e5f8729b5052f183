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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.BiConsumer;
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

    private final RateLimitStore delegate;
    private final boolean atOnce;
    private final long timeoutNanos;
    private final OnFailure onFailure;
    private final PolicyDecisions decisions;
    private final OutageLog outage;
    private final OutageBreaker breaker;
    /** Null when refusals are not remembered: the store answers at once, announces nothing, or the memory is off. */
    private final RefusalMemory memory;
    private final LongSupplier clock;
    private final StoreDeadlines deadlines;
    private final boolean timed;
    private final RateLimitMetrics.Timer decided;
    private final RateLimitMetrics.Timer failed;
    private final RateLimitMetrics.Timer timedOut;
    /** The metrics, for the counters of refusals answered at home, made when a limit binds (only with a memory). */
    private final RateLimitMetrics metrics;
    /**
     * The counter of {@link RateLimitMetrics#REFUSED_AT_HOME} of each count bound, by (name, plan); read only when a
     * refusal is answered at home. Empty without a memory.
     */
    private final ConcurrentHashMap<CountKey, RateLimitMetrics.Counter> refusedAtHome = new ConcurrentHashMap<>();

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
        if (!atOnce && settings.enabled() && settings.refusalMemoryMillis() > 0) {
            RefusalMemory candidate = new RefusalMemory(settings.refusalMemoryMillis(), settings.maxTrackedPartitions(), clock);
            if (delegate.announceTo(candidate)) {
                memory = candidate;
            }
        }
        this.memory = memory;
        this.deadlines = atOnce ? null : new StoreDeadlines(timeoutNanos);
        this.timed = metrics.isEnabled();
        String name = delegate.storeName();
        this.decided = metrics.storeDuration(name, StoreOutcome.DECIDED);
        this.failed = metrics.storeDuration(name, StoreOutcome.FAILED);
        this.timedOut = metrics.storeDuration(name, StoreOutcome.TIMEOUT);
        this.metrics = metrics;
        metrics.breaker(name, breaker::isOpen);
    }

    @Override
    public Object bind(CountKey key) {
        Object handle = delegate.bind(key);
        decisions.bind(key);
        if (memory != null) {
            refusedAtHome.computeIfAbsent(key, k -> metrics.refusedAtHome(k.name(),
                    k.plan() == null ? RateLimitMetrics.NO_PLAN : k.plan()));
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
        CompletionStage<Void> restarted = bounded(delegate.restart(partition, request));
        if (memory == null) {
            return restarted;
        }
        CountKey key = request.key(0);
        return restarted.thenRun(() -> memory.gained(key.name(), key.plan(), key.partition(partition)));
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
        if (atOnce) {
            try {
                return CompletableFuture.completedFuture(decide(partition, request, multiple));
            } catch (RateLimitStoreException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        RefusalMemory memory = this.memory;
        long sentAt = 0;
        long ticket = -1;
        if (memory != null) {
            RateLimitDecision remembered = memory.answer(partition, request, multiple);
            if (remembered != null) {
                countRefusedAtHome(remembered);
                return CompletableFuture.completedFuture(remembered);
            }
            ticket = memory.ticket();
            sentAt = ticket < 0 ? 0 : clock.getAsLong();
        }
        if (!breaker.mayCall()) {
            return answer(fallbackOrFailure(partition, request, multiple, breaker.cause(), 0, false));
        }
        long start = timed ? System.nanoTime() : 0;
        CompletionStage<RateLimitDecision> stage;
        try {
            stage = delegate.acquire(partition, request, multiple);
            if (stage == null) {
                throw new IllegalStateException(delegate + " answered null");
            }
        } catch (RuntimeException e) {
            if (delegate.unreachable(e)) {
                breaker.unreachable(e);
            }
            return answer(fallbackOrFailure(partition, request, multiple, e, start, true));
        }
        Call call = new Call(partition, request, multiple, start, sentAt, ticket);
        stage.whenComplete(call);
        if (!call.isDone()) {
            deadlines.watch(call);
        }
        return call;
    }

    /** Counts each limit that refused {@code remembered}, a refusal answered at home. */
    private void countRefusedAtHome(RateLimitDecision remembered) {
        for (int i = 0; i < remembered.size(); i++) {
            if (remembered.refuses(i)) {
                RateLimitMetrics.Counter counter = refusedAtHome.get(remembered.request().key(i));
                if (counter != null) {
                    counter.increment();
                }
            }
        }
    }

    /** A stage completed with what {@link #fallbackOrFailure} answered. */
    private static CompletionStage<RateLimitDecision> answer(Object decided) {
        return decided instanceof RateLimitDecision d ? CompletableFuture.completedFuture(d)
                : CompletableFuture.failedFuture((Throwable) decided);
    }

    /** {@link #fallback}: its decision, or the {@link RateLimitStoreException} it threw. */
    private Object fallbackOrFailure(String partition, RateLimitRequest request, int multiple, Throwable cause, long start,
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
                outage.failed("the give-back of " + decision.request(), cause);
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

    private static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /**
     * One call to the store: the stage the engine gets, completed once, by whichever comes first of the store's answer
     * and the deadline ({@code settled} by compare-and-set, so that the policy never decides a call whose answer is
     * being taken, nor the other way round).
     */
    final class Call extends CompletableFuture<RateLimitDecision> implements BiConsumer<RateLimitDecision, Throwable> {

        private static final AtomicIntegerFieldUpdater<Call> SETTLED =
                AtomicIntegerFieldUpdater.newUpdater(Call.class, "settled");

        final long deadline;
        private final String partition;
        private final RateLimitRequest request;
        private final int multiple;
        private final long start;
        private final long sentAt;
        private final long ticket;
        private volatile int settled;

        Call(String partition, RateLimitRequest request, int multiple, long start, long sentAt, long ticket) {
            this.partition = partition;
            this.request = request;
            this.multiple = multiple;
            this.start = start;
            this.sentAt = sentAt;
            this.ticket = ticket;
            this.deadline = System.nanoTime() + timeoutNanos;
        }

        /** The store's answer. */
        @Override
        public void accept(RateLimitDecision decision, Throwable failure) {
            if (failure == null && decision != null) {
                breaker.answered();
                if (ticket >= 0 && !decision.allowed()) {
                    memory.remember(partition, request, multiple, decision, sentAt, ticket);
                }
                if (SETTLED.compareAndSet(this, 0, 1)) {
                    if (timed) {
                        decided.record(System.nanoTime() - start);
                    }
                    outage.answered();
                    complete(decision);
                } else if (decision.allowed()) {
                    release(decision); // answered after the timeout: the policy decided, so nothing stays spent
                }
                return;
            }
            Throwable cause = failure == null ? new IllegalStateException(delegate + " answered null") : unwrap(failure);
            if (delegate.unreachable(cause)) {
                breaker.unreachable(cause);
            }
            settleWithout(cause);
        }

        /** The deadline passed without an answer. */
        void timedOut() {
            if (settled == 0) {
                TimeoutException timeout = new TimeoutException("no answer within " + timeoutNanos / 1_000_000 + " ms");
                breaker.unreachable(timeout);
                settleWithout(timeout);
            }
        }

        private void settleWithout(Throwable cause) {
            if (SETTLED.compareAndSet(this, 0, 1)) {
                Object answer = fallbackOrFailure(partition, request, multiple, cause, start, true);
                if (answer instanceof RateLimitDecision d) {
                    complete(d);
                } else {
                    completeExceptionally((Throwable) answer);
                }
            }
        }
    }
}
