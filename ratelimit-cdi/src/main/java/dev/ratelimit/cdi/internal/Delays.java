package dev.ratelimit.cdi.internal;

import dev.ratelimit.core.RateLimitDecision;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * How a call that reserved its permits (SPEC 20) waits for the instant they exist: a blocking call sleeps on its
 * thread; an asynchronous one is delayed without holding a thread, and goes on on the caller's Vert.x context where
 * there is one (a Vert.x timer: Quarkus), else on the common pool (the JDK's one delay scheduler thread times every
 * wait). A wait is never cut short: the call goes at the granted instant or later.
 */
final class Delays {

    private Delays() {
    }

    /**
     * Sleeps until {@code nanos} have passed.
     *
     * @param giveBack what to do when the thread is interrupted first: the reservation is given back
     * @throws CancellationException when interrupted (the interrupt status is kept)
     */
    static void sleep(long nanos, RateLimitDecision decision, Runnable giveBack) {
        long deadline = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
            if (Thread.interrupted()) {
                giveBack.run();
                Thread.currentThread().interrupt();
                throw new CancellationException("ratelimit: interrupted while waiting for the permits of "
                        + decision.request() + "; the reservation was given back");
            }
        }
    }

    /** A stage that completes once {@code nanos} have passed, on the caller's context where there is one. */
    static CompletionStage<Void> after(long nanos) {
        CompletionStage<Void> onContext = Resumption.after(nanos);
        if (onContext != null) {
            return onContext;
        }
        return CompletableFuture.runAsync(() -> { }, CompletableFuture.delayedExecutor(nanos, TimeUnit.NANOSECONDS));
    }
}
