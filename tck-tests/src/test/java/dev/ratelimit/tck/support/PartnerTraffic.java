package dev.ratelimit.tck.support;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * The shares of this suite ({@code POST /todos/{id}/share}): they all spend from the example's one {@code partner}
 * count, which is the whole application's ({@code per = APPLICATION}), whatever the caller. {@code PartnerLimitTest}
 * times its shares against that count (how long a share waits depends on every share before it), so it sends them under
 * the exclusive side of this lock; any other test sends its shares under the shared side, never in the middle of such a
 * sequence, whichever classes run side by side.
 */
public final class PartnerTraffic {

    private static final ReentrantReadWriteLock LOCK = new ReentrantReadWriteLock(true);

    private PartnerTraffic() {
    }

    /** Sends {@code shares}, never while a test has the partner's count to itself. */
    public static <T> T send(Supplier<T> shares) {
        return holding(LOCK.readLock(), shares);
    }

    /** Runs {@code sequence} while no other share of the suite is sent. */
    public static <T> T alone(Supplier<T> sequence) {
        return holding(LOCK.writeLock(), sequence);
    }

    private static <T> T holding(Lock lock, Supplier<T> work) {
        lock.lock();
        try {
            return work.get();
        } finally {
            lock.unlock();
        }
    }
}
