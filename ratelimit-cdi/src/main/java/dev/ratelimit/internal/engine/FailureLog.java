package dev.ratelimit.internal.engine;

import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Logs a recurring failure (a store that cannot answer) without flooding: the first occurrence at once,
 * then at most one line a minute that says how many occurred since. Thread-safe: {@code next} is the
 * clock reading after which the next line may be written, claimed by CAS; {@code suppressed} counts
 * the occurrences not logged.
 */
public final class FailureLog {

    private static final long INTERVAL_NANOS = 60_000_000_000L;

    private final System.Logger log;
    private final AtomicLong next = new AtomicLong(System.nanoTime());
    private final AtomicLong suppressed = new AtomicLong();

    public FailureLog(System.Logger log) {
        this.log = log;
    }

    /** Logs {@code message} with {@code cause} at ERROR, unless a line was written less than a minute ago. */
    public void failed(String message, Throwable cause) {
        long now = System.nanoTime();
        long due = next.get();
        if (now - due < 0 || !next.compareAndSet(due, now + INTERVAL_NANOS)) {
            suppressed.incrementAndGet();
            return;
        }
        long since = suppressed.getAndSet(0);
        log.log(Level.ERROR, since == 0 ? message
                : message + " (and " + since + " more such failures in the last minute, not logged)", cause);
    }
}
