package dev.ratelimit.core.log;

import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;

/**
 * A log line for a recurring condition, written at most once an interval: the first occurrence at once,
 * then the first occurrence after the interval has passed, saying how many occurred since the last line.
 * Nothing per request; no background thread.
 *
 * <p>Concurrency: {@code next} is the clock reading after which the next line may be written, claimed
 * by CAS; {@code since} counts the occurrences since the last line.
 *
 * <p>The library's internals, public for its packages: not an API.
 */
public final class RateLimitedLog {

    /** One minute, in nanoseconds: the usual interval. */
    public static final long MINUTE_NANOS = 60_000_000_000L;

    private final System.Logger log;
    private final Level level;
    private final long intervalNanos;
    private final LongSupplier clock;
    private final AtomicLong next;
    private final AtomicLong since = new AtomicLong();

    public RateLimitedLog(System.Logger log, Level level, long intervalNanos, LongSupplier clock) {
        this.log = log;
        this.level = level;
        this.intervalNanos = intervalNanos;
        this.clock = clock;
        this.next = new AtomicLong(clock.getAsLong());
    }

    /**
     * Counts one occurrence and, when a line is due, writes {@code message.apply(occurrences since the last
     * line, this one included)}.
     */
    public void occurred(LongFunction<String> message, Throwable cause) {
        long count = since.incrementAndGet();
        long now = clock.getAsLong();
        long due = next.get();
        if (now - due < 0 || !next.compareAndSet(due, now + intervalNanos)) {
            return;
        }
        count = since.getAndSet(0);
        String line = message.apply(Math.max(count, 1));
        if (cause == null) {
            log.log(level, line);
        } else {
            log.log(level, line, cause);
        }
    }
}
