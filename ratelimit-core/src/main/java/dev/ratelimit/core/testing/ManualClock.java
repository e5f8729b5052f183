package dev.ratelimit.core.testing;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A nanosecond clock that moves only when a test moves it: the stand-in for {@code System::nanoTime},
 * so that tests of an application's limits never sleep and every instant is exact. With
 * {@code ratelimit.test.manual-clock=true} the library counts on one (the CDI module's
 * {@code RateLimitTesting} hands it out); engine and store tests make their own.
 *
 * <p>It starts at {@link #DEFAULT_START}, a non-zero value aligned to no step (steps are multiples of
 * 125 ms), so that arithmetic which forgets a count's anchor shows. Thread-safe: many threads may read it
 * while one moves it.
 */
public final class ManualClock implements LongSupplier {

    /** Where a clock made with {@link #ManualClock()} starts: about 1234.6 s, aligned to no step. */
    public static final long DEFAULT_START = 1_234_567_890_123L;

    private final AtomicLong nanos;

    /** A clock at {@link #DEFAULT_START}. */
    public ManualClock() {
        this(DEFAULT_START);
    }

    /** A clock at {@code startNanos}; like {@code System.nanoTime()}, any value, negative ones too. */
    public ManualClock(long startNanos) {
        this.nanos = new AtomicLong(startNanos);
    }

    /** The current reading, in nanoseconds. */
    @Override
    public long getAsLong() {
        return nanos.get();
    }

    /** The current reading, in nanoseconds (the same as {@link #getAsLong()}). */
    public long now() {
        return nanos.get();
    }

    /** Moves the clock forward by {@code duration}, which must not be negative. */
    public ManualClock advance(Duration duration) {
        return advanceNanos(duration.toNanos());
    }

    /** Moves the clock forward by {@code millis} milliseconds, {@code >= 0}. */
    public ManualClock advanceMillis(long millis) {
        return advanceNanos(Math.multiplyExact(millis, 1_000_000L));
    }

    /** Moves the clock forward by {@code seconds} seconds, {@code >= 0}. */
    public ManualClock advanceSeconds(long seconds) {
        return advanceNanos(Math.multiplyExact(seconds, 1_000_000_000L));
    }

    /**
     * Moves the clock forward by {@code delta} nanoseconds, {@code >= 0}. Like {@code System.nanoTime()},
     * the reading wraps around past {@code Long.MAX_VALUE}; only differences between readings mean anything.
     */
    public ManualClock advanceNanos(long delta) {
        if (delta < 0) {
            throw new IllegalArgumentException("a monotonic clock does not go back; advance was " + delta + " ns");
        }
        nanos.addAndGet(delta);
        return this;
    }

    /** Puts the clock at {@code nanos} (tests use it to place an instant exactly: anchor + k steps). */
    public ManualClock set(long nanos) {
        this.nanos.set(nanos);
        return this;
    }

    @Override
    public String toString() {
        return "ManualClock[" + nanos.get() + " ns]";
    }
}
