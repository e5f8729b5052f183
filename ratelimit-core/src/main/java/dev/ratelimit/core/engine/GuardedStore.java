package dev.ratelimit.core.engine;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.CountState;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.RateLimitStoreException;
import dev.ratelimit.core.config.OnFailure;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import dev.ratelimit.core.metrics.RateLimitMetrics.StoreOutcome;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * The failure policy, one decorator around any store (SPEC 16): every call is decided within
 * {@code ratelimit.store.timeout-millis}, and when the store fails, throws, or does not answer in time,
 * {@code ratelimit.store.on-failure} decides: {@code fail} (the call fails with
 * {@link RateLimitStoreException}), {@code allow} (uncounted), {@code local} (an in-process store kept for
 * outages). One warning per outage, one line on recovery ({@link OutageLog}). It is a {@link RateLimitStore}
 * like the one it guards, and answers at once exactly when that one does.
 *
 * <p>A store that never answers costs one timer (the JDK's shared delay scheduler of
 * {@link CompletableFuture#orTimeout}), not a thread. A store that answers after the timeout has its permits
 * given back at once: the policy decided that call, so the store's late decision must not stay spent. A store
 * that answers at once is called without a stage or a timer.
 *
 * <p>A decision the policy made ({@code allow} or {@code local}) answers a twin of the request: the same
 * limits bound to the local store. So such a decision says itself that the store did not make it (its
 * request is not the one asked), and {@link #release} knows where to give back. Twins are made on the first
 * failure of a request and kept ({@code twins}, {@code twinSet}: concurrent, only added to).
 */
final class GuardedStore implements RateLimitStore {

    private final RateLimitStore delegate;
    private final boolean atOnce;
    private final long timeoutNanos;
    private final OnFailure onFailure;
    private final InProcessRateLimitStore local;
    private final OutageLog outage;
    private final boolean timed;
    private final RateLimitMetrics.Timer decided;
    private final RateLimitMetrics.Timer failed;
    private final RateLimitMetrics.Timer timedOut;
    /** Guarded by itself: the local store's handle of every key bound. */
    private final Map<CountKey, Object> localHandles = new IdentityHashMap<>();
    private final ConcurrentHashMap<RateLimitRequest, RateLimitRequest> twins = new ConcurrentHashMap<>();
    private final Set<RateLimitRequest> twinSet = ConcurrentHashMap.newKeySet();

    GuardedStore(RateLimitStore delegate, long timeoutMillis, OnFailure onFailure, int maxTrackedPartitions,
                 LongSupplier localClock, RateLimitMetrics metrics) {
        this.delegate = delegate;
        this.atOnce = delegate.answersAtOnce();
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        this.onFailure = onFailure;
        this.local = onFailure == OnFailure.LOCAL ? new InProcessRateLimitStore(maxTrackedPartitions, localClock) : null;
        this.outage = new OutageLog("the store " + delegate, switch (onFailure) {
            case FAIL -> "calls fail (a request gets 500) (ratelimit.store.on-failure=fail)";
            case ALLOW -> "calls are let through uncounted (ratelimit.store.on-failure=allow)";
            case LOCAL -> "each instance counts alone, in process (ratelimit.store.on-failure=local)";
        });
        this.timed = metrics.isEnabled();
        String name = delegate.storeName();
        this.decided = metrics.storeDuration(name, StoreOutcome.DECIDED);
        this.failed = metrics.storeDuration(name, StoreOutcome.FAILED);
        this.timedOut = metrics.storeDuration(name, StoreOutcome.TIMEOUT);
    }

    @Override
    public Object bind(CountKey key) {
        Object handle = delegate.bind(key);
        if (local != null) {
            synchronized (localHandles) {
                localHandles.put(key, local.bind(key));
            }
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

    /** The store's own answer, bounded by the timeout; no failure policy (an operator asked: tell them). */
    @Override
    public CompletionStage<Void> restart(String partition, RateLimitRequest request) {
        return bounded(delegate.restart(partition, request));
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
            return fallback(partition, request, multiple, e, start);
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
        long start = timed ? System.nanoTime() : 0;
        CompletionStage<RateLimitDecision> stage;
        try {
            stage = delegate.acquire(partition, request, multiple);
            if (stage == null) {
                throw new IllegalStateException(delegate + " answered null");
            }
        } catch (RuntimeException e) {
            try {
                return CompletableFuture.completedFuture(fallback(partition, request, multiple, e, start));
            } catch (RateLimitStoreException failure) {
                return CompletableFuture.failedFuture(failure);
            }
        }
        CompletableFuture<RateLimitDecision> answer = new CompletableFuture<>();
        stage.whenComplete((decision, failure) -> {
            if (failure == null) {
                if (!answer.complete(decision) && decision != null && decision.allowed()) {
                    release(decision); // answered after the timeout: the policy decided, so nothing stays spent
                }
            } else {
                answer.completeExceptionally(failure);
            }
        });
        return answer.orTimeout(timeoutNanos, TimeUnit.NANOSECONDS).handle((decision, failure) -> {
            if (failure == null) {
                if (timed) {
                    decided.record(System.nanoTime() - start);
                }
                outage.answered();
                return decision;
            }
            return fallback(partition, request, multiple, unwrap(failure), start);
        });
    }

    @Override
    public CompletionStage<Void> release(RateLimitDecision decision) {
        if (twinSet.contains(decision.request())) { // the policy decided it: nothing of it is in the store
            if (local != null) {
                local.giveBack(decision);
            }
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
            } else {
                outage.failed("the give-back of " + decision.request(), unwrap(failure));
            }
        });
    }

    @Override
    public String storeName() {
        return delegate.storeName();
    }

    /** What the policy does, for the start-up line. */
    String policy() {
        return "timeout " + timeoutNanos / 1_000_000 + " ms, on failure " + onFailure.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
        return delegate.toString();
    }

    private RateLimitDecision fallback(String partition, RateLimitRequest request, int multiple, Throwable cause,
                                       long start) {
        boolean timeout = cause instanceof TimeoutException;
        if (timed) {
            (timeout ? timedOut : failed).record(System.nanoTime() - start);
        }
        Throwable reported = timeout
                ? new TimeoutException("no answer within " + timeoutNanos / 1_000_000 + " ms") : cause;
        outage.failed(request.toString(), reported);
        switch (onFailure) {
            case ALLOW -> {
                RateLimitRequest twin = twin(request);
                Outcome[] outcomes = new Outcome[twin.size()];
                for (int i = 0; i < outcomes.length; i++) {
                    outcomes[i] = Outcome.uncounted(twin.policy(i));
                }
                return RateLimitDecision.ofArray(partition, twin, multiple, outcomes);
            }
            case LOCAL -> {
                return local.decide(partition, twin(request), multiple);
            }
            default -> throw new RateLimitStoreException("ratelimit: the store " + delegate + " could not decide "
                    + request + ": " + OutageLog.describe(reported), reported);
        }
    }

    private RateLimitRequest twin(RateLimitRequest request) {
        RateLimitRequest twin = twins.get(request);
        if (twin != null) {
            return twin;
        }
        return twins.computeIfAbsent(request, r -> {
            RateLimitRequest.Builder builder = RateLimitRequest.builder();
            for (int i = 0; i < r.size(); i++) {
                Object handle;
                if (local == null) {
                    handle = r.handle(i);
                } else {
                    synchronized (localHandles) {
                        handle = localHandles.computeIfAbsent(r.key(i), local::bind);
                    }
                }
                builder.add(handle, r.key(i), r.policy(i), r.cost(i), r.kind(i));
            }
            RateLimitRequest made = builder.build();
            twinSet.add(made);
            return made;
        });
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
