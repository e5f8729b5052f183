package dev.ratelimit.tck.support;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * The requests of this suite that the metric counters of the limit {@code default} count for callers in no plan
 * ({@code GET /todos} without a plan), as far as they can overlap: {@code SpecExampleTest} runs beside the other
 * classes ({@code CONCURRENT}) and sends such requests, and {@code MetricsTest} reads those counters before and
 * after a sequence of its own and asserts the deltas exactly. {@code SpecExampleTest} sends under the shared side of
 * this lock (its requests, never its 18 s wait), {@code MetricsTest} reads, sends and reads again under the exclusive
 * side: no request of the suite can land between its two reads, so a delta that is not the sequence's own is a
 * wrong count, never another test's traffic. (Every other class runs one at a time, never beside MetricsTest.)
 */
public final class DefaultLimitTraffic {

    private static final ReentrantReadWriteLock LOCK = new ReentrantReadWriteLock(true);

    private DefaultLimitTraffic() {
    }

    /** Sends {@code requests}, which {@code default}'s counters of no plan count, never inside an exclusive read. */
    public static <T> T send(Supplier<T> requests) {
        return holding(LOCK.readLock(), requests);
    }

    /** Runs {@code sequence} while no other request of the suite that those counters count is sent. */
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
