package dev.ratelimit.core.guard;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The deadlines of the calls to one store, which all have the same timeout: one queue, in the order the calls went
 * (so in the order of their deadlines), looked at by one task at a time on the JDK's shared delay scheduler (the
 * thread of {@link CompletableFuture#orTimeout}). A call costs a queue node instead of a timer of its own, whose
 * scheduling and cancelling would wake that thread about once per call; the task runs every
 * {@value #SWEEP_MILLIS} ms (sooner for a deadline), and only while calls are out.
 *
 * <p>Concurrency: any thread adds (a lock-free queue); the task runs on the scheduler's thread, one at a time:
 * {@code scheduled} is set by whoever schedules it, and cleared by the task when it leaves nothing to look at, after
 * which it looks once more for a call added meanwhile (whose adder saw it set and scheduled nothing).
 */
final class StoreDeadlines {

    /** How often, at least, the answered calls leave the queue (it holds them until then). */
    static final long SWEEP_MILLIS = 10;
    private static final long SWEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(SWEEP_MILLIS);

    private final long timeoutNanos;
    private final ConcurrentLinkedQueue<StoreCall> calls = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Runnable task = this::run;

    StoreDeadlines(long timeoutNanos) {
        this.timeoutNanos = timeoutNanos;
    }

    /** Times {@code call} out at its deadline unless it is done by then. */
    void watch(StoreCall call) {
        calls.offer(call);
        if (!scheduled.get() && scheduled.compareAndSet(false, true)) {
            schedule(Math.min(SWEEP_NANOS, timeoutNanos));
        }
    }

    private void schedule(long delayNanos) {
        CompletableFuture.delayedExecutor(delayNanos, TimeUnit.NANOSECONDS, Runnable::run).execute(task);
    }

    private void run() {
        do {
            long now = System.nanoTime();
            StoreCall head;
            while ((head = calls.peek()) != null) {
                if (head.isDone()) {
                    calls.poll();
                } else if (head.deadline - now > 0) {
                    schedule(Math.min(SWEEP_NANOS, head.deadline - now));
                    return;
                } else {
                    calls.poll();
                    head.timedOut();
                }
            }
            scheduled.set(false);
        } while (!calls.isEmpty() && scheduled.compareAndSet(false, true));
    }
}
