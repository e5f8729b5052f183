package dev.ratelimit.core.engine;

import dev.ratelimit.core.RateLimitDecision;
import java.util.concurrent.CancellationException;
import java.util.concurrent.locks.LockSupport;

/**
 * How a blocking call that reserved its permits (a limit that waits) waits for the instant they exist: it parks its
 * thread (no CPU while it waits) until then, never less; an interrupt gives the reservation back. Asynchronous calls
 * are delayed by their adapter instead, without a thread.
 */
public final class WaitingCalls {

    private WaitingCalls() {
    }

    /**
     * Sleeps the decision's {@link RateLimitDecision#waitNanos() wait}, from now.
     *
     * @param giveBack run when the thread is interrupted first: gives the reservation back
     * @throws CancellationException when interrupted (the interrupt status is kept); the reservation was given back
     */
    public static void sleep(RateLimitDecision decision, Runnable giveBack) {
        long nanos = decision.waitNanos();
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
}
