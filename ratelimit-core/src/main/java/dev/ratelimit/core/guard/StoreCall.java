package dev.ratelimit.core.guard;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitRequest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.BiConsumer;

/**
 * One call to the store: the stage the engine gets, completed once, by whichever comes first of the store's answer
 * and the deadline ({@code settled} by compare-and-set, so that the policy never decides a call whose answer is
 * being taken, nor the other way round).
 */
final class StoreCall extends CompletableFuture<RateLimitDecision> implements BiConsumer<RateLimitDecision, Throwable> {

    private static final AtomicIntegerFieldUpdater<StoreCall> SETTLED =
            AtomicIntegerFieldUpdater.newUpdater(StoreCall.class, "settled");

    final long deadline;
    private final GuardedStore guard;
    private final String partition;
    private final RateLimitRequest request;
    private final int multiple;
    private final long start;
    private final long sentAt;
    private final long ticket;
    private volatile int settled;
    /** Null unless the request is sliced: its slice, how many times its cost went to the store, the slice ticket. */
    private Slice slice;
    private int asked;
    private long sliceTicket;

    StoreCall(GuardedStore guard, String partition, RateLimitRequest request, int multiple, long start, long sentAt,
              long ticket) {
        this.guard = guard;
        this.partition = partition;
        this.request = request;
        this.multiple = multiple;
        this.start = start;
        this.sentAt = sentAt;
        this.ticket = ticket;
        this.deadline = System.nanoTime() + guard.timeoutNanos;
    }

    /** The request is sliced: the call asks {@code asked} times its cost (more than the request's: a slice). */
    void sliced(Slice slice, int asked, long sliceTicket) {
        this.slice = slice;
        this.asked = asked;
        this.sliceTicket = sliceTicket;
    }

    /** The store's answer. */
    @Override
    public void accept(RateLimitDecision decision, Throwable failure) {
        Slice slice = this.slice;
        boolean taking = slice != null && asked != multiple;
        if (failure == null && decision != null) {
            guard.breaker.answered();
            if (taking && !decision.allowed() && settled == 0) {
                // the slice did not fit: the request alone goes to the store, exactly (the same deadline)
                guard.slices.answered(slice, decision, sentAt);
                guard.slices.untaken(slice);
                this.asked = multiple;
                CompletionStage<RateLimitDecision> exact;
                try {
                    exact = guard.delegate.acquire(partition, request, multiple);
                } catch (RuntimeException e) {
                    accept(null, e);
                    return;
                }
                exact.whenComplete(this);
                return;
            }
            if (ticket >= 0 && !decision.allowed()) {
                guard.memory.remember(partition, request, multiple, decision, sentAt, ticket);
            }
            if (SETTLED.compareAndSet(this, 0, 1)) {
                if (guard.timed) {
                    guard.decided.record(System.nanoTime() - start);
                }
                guard.outage.answered();
                if (slice != null) {
                    guard.slices.answered(slice, decision, sentAt);
                    if (taking) {
                        decision = guard.slices.taken(slice, partition, request, multiple, decision, sentAt, sliceTicket);
                    }
                }
                complete(decision);
            } else {
                if (taking) {
                    guard.slices.untaken(slice);
                }
                if (decision.allowed()) {
                    guard.release(decision); // answered after the timeout: the policy decided, so nothing stays spent
                }
            }
            return;
        }
        if (taking) {
            guard.slices.untaken(slice);
        }
        Throwable cause = failure == null ? new IllegalStateException(guard.delegate + " answered null") : GuardedStore.unwrap(failure);
        if (guard.delegate.unreachable(cause)) {
            guard.breaker.unreachable(cause);
        }
        settleWithout(cause);
    }

    /** The deadline passed without an answer. */
    void timedOut() {
        if (settled == 0) {
            if (slice != null && asked != multiple) {
                guard.slices.untaken(slice);
            }
            TimeoutException timeout = new TimeoutException("no answer within " + guard.timeoutNanos / 1_000_000 + " ms");
            guard.breaker.unreachable(timeout);
            settleWithout(timeout);
        }
    }

    private void settleWithout(Throwable cause) {
        if (SETTLED.compareAndSet(this, 0, 1)) {
            Object answer = guard.fallbackOrFailure(partition, request, multiple, cause, start, true);
            if (answer instanceof RateLimitDecision d) {
                complete(d);
            } else {
                completeExceptionally((Throwable) answer);
            }
        }
    }
}
