package dev.ratelimit.testing;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A nanosecond clock that moves only when a test moves it: the stand-in for {@code System::nanoTime}
 * in engine and store tests, so that no test sleeps and every instant is exact.
 *
 * <p>It starts at {@link #DEFAULT_START}, a non-zero value that is not a multiple of any step length
 * (steps are multiples of 125 ms), so that arithmetic which forgets a count's anchor (steps counted
 * from zero instead of from the count's creation) shows. Reads and moves are thread-safe: many
 * threads may read it while one moves it.
 */
public final class FakeClock implements LongSupplier {

    /** Where a clock made with {@link #FakeClock()} starts: about 1234.6 s, aligned to no step. */
    public static final long DEFAULT_START = 1_234_567_890_123L;

    private final AtomicLong nanos;

    /** A clock at {@link #DEFAULT_START}. */
    public FakeClock() {
        this(DEFAULT_START);
    }

    /** A clock at {@code startNanos}; like {@code System.nanoTime()}, any value, negative ones too. */
    public FakeClock(long startNanos) {
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
    public FakeClock advance(Duration duration) {
        return advanceNanos(duration.toNanos());
    }

    /** Moves the clock forward by {@code millis} milliseconds, {@code >= 0}. */
    public FakeClock advanceMillis(long millis) {
        return advanceNanos(Math.multiplyExact(millis, 1_000_000L));
    }

    /** Moves the clock forward by {@code seconds} seconds, {@code >= 0}. */
    public FakeClock advanceSeconds(long seconds) {
        return advanceNanos(Math.multiplyExact(seconds, 1_000_000_000L));
    }

    /**
     * Moves the clock forward by {@code delta} nanoseconds, {@code >= 0}. Like {@code System.nanoTime()},
     * the reading wraps around past {@code Long.MAX_VALUE}; only differences between readings mean anything.
     */
    public FakeClock advanceNanos(long delta) {
        if (delta < 0) {
            throw new IllegalArgumentException("a monotonic clock does not go back; advance was " + delta + " ns");
        }
        nanos.addAndGet(delta);
        return this;
    }

    /** Puts the clock at {@code nanos}. Tests use it to place an instant exactly (anchor + k steps). */
    public FakeClock set(long nanos) {
        this.nanos.set(nanos);
        return this;
    }

    @Override
    public String toString() {
        return "FakeClock[" + nanos.get() + " ns]";
    }
}
