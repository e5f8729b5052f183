package dev.ratelimit.core.guard;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * An outage costs one timeout, not one per call: once the store could not be reached, calls are decided by the
 * failure policy without calling it for {@code ratelimit.store.retry-millis}; then one call probes it (the others go
 * on without it meanwhile), and the first answer ends the outage. Retry 0 turns it off: every call tries the store.
 *
 * <p>Concurrency: {@code open} is written after {@code retryAt}, so a caller that sees it open sees the instant the
 * outage retries at (or a later one). When that instant has come, the caller whose compare-and-set moves it one retry
 * further is the only probe of that round.
 */
final class OutageBreaker {

    private final long retryNanos;
    private final LongSupplier clock;
    private final AtomicLong retryAt = new AtomicLong();
    private volatile boolean open;
    /** What made the store unreachable last: what a call decided without it reports. */
    private volatile Throwable cause;

    /**
     * @param retryMillis {@code ratelimit.store.retry-millis}, {@code >= 0}
     * @param clock       the engine's clock, in nanoseconds
     */
    OutageBreaker(long retryMillis, LongSupplier clock) {
        this.retryNanos = TimeUnit.MILLISECONDS.toNanos(retryMillis);
        this.clock = clock;
    }

    /** True when this call may go to the store: no outage, or it is the probe that the outage waited for. */
    boolean mayCall() {
        if (!open) {
            return true;
        }
        long at = retryAt.get();
        long now = clock.getAsLong();
        return now - at >= 0 && retryAt.compareAndSet(at, now + retryNanos);
    }

    /** The store could not be reached: no call goes to it for the retry time. */
    void unreachable(Throwable failure) {
        if (retryNanos == 0) {
            return;
        }
        cause = failure;
        retryAt.set(clock.getAsLong() + retryNanos);
        open = true;
    }

    /** The store answered: the outage, if any, is over. */
    void answered() {
        if (open) {
            open = false;
        }
    }

    /** Whether calls go without the store now. */
    boolean isOpen() {
        return open;
    }

    /** What made the store unreachable last. */
    Throwable cause() {
        return cause;
    }

    /** The retry time, in milliseconds. */
    long retryMillis() {
        return TimeUnit.NANOSECONDS.toMillis(retryNanos);
    }
}
