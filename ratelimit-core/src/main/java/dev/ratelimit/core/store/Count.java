package dev.ratelimit.core.store;

import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitPolicy;
import java.lang.invoke.VarHandle;

/**
 * The count of one (key, partition) in the in-process store: a {@link WindowCount} or a
 * {@link BucketCount}.
 *
 * <p>Locking: every count carries its own lock, a bit of a volatile word. Every method but
 * {@link #tryAcquire}, {@link #tryHold} and {@link #lock} requires the lock
 * ({@code lock(); try { ... } finally { unlock(); }}), which is why none of them is public. {@link #tryAcquire}
 * is the lock-free fast path of a request of one limit, {@link #tryHold} that of the first count of a request of
 * two (it takes the lock as it spends, {@link #releaseHeld} ends it); both fail over to the locked path whenever
 * they cannot decide alone.
 *
 * <p>Lifecycle: a count is created in its table, spent from, and removed (evicted) once it holds nothing
 * (every permit returned). The evicted mark is set under the lock and never cleared; a caller that finds
 * a count evicted ({@link #lock} returns false) looks it up anew.
 */
abstract class Count {

    /**
     * The sizing tag of the request that sized this count ({@link dev.ratelimit.core.RateLimitRequest#tag}).
     * Written under the lock; read without it only by the store's lock-free path, as a hint that sends a count of
     * another tag to the locked path (see {@link #adopt}).
     */
    int tag;

    /**
     * Live values: takes the size of {@code policy}, whose tag differs from this count's. The same
     * window and algorithm with another permit limit keeps the permits spent (a raised limit gives room at once, a
     * lowered one refuses until enough have returned); another window starts the count afresh. Requires the lock
     * and a policy of this count's kind (window or bucket: the store replaces a count of the other kind).
     *
     * @return this count, re-sized; or a count that replaces it (a bucket, whose size is final)
     */
    abstract Count adopt(long now, RateLimitPolicy policy);

    /** Permits spent past the limit (a charge): 0 when the count is not in debt. Requires the lock. */
    abstract long debt(long now);

    /**
     * Spends {@code permits} without the lock, when that is all the request does: the count is neither
     * locked nor evicted, holds permits already (so no re-sizing), and {@code now} needs no other change.
     * A token bucket also refuses here.
     *
     * @return the outcome, or null (nothing done) when the caller must take the lock
     */
    abstract Outcome tryAcquire(long now, long permits, RateLimitPolicy policy);

    /**
     * {@link #tryAcquire} for the first count of a request of two limits, which must not be seen spent before the
     * second is: on success the permits are in the count, but the count stays locked until {@link #releaseHeld}
     * keeps them or takes them back. Nothing but {@link #releaseHeld} may be called in between. Refuses nothing
     * (null: the caller takes the locked path, which decides refusals).
     *
     * @return the outcome, with the count held; or null (nothing done, the count not held)
     */
    abstract Outcome tryHold(long now, long permits, RateLimitPolicy policy);

    /**
     * Ends {@link #tryHold} of {@code permits}: unlocks the count with them spent ({@code keep}), or exactly as it
     * was before.
     */
    abstract void releaseHeld(long permits, boolean keep);

    /**
     * Takes the lock, spinning (then yielding) while another thread holds it.
     *
     * @return false, with the lock taken all the same, when the count has been evicted
     */
    abstract boolean lock();

    /** Releases the lock, publishing what changed. */
    abstract void unlock();

    /**
     * {@code now}, or the latest instant another thread has already moved this count to, if that is later. The
     * store reads the clock before it finds and locks a count, so another thread's later reading may have created,
     * re-anchored or rolled the count in between; an earlier reading taken as it is would report a reset or a
     * wait longer than the window. Requires the lock; every other method below takes the instant it returns.
     */
    abstract long notBefore(long now);

    /**
     * Moves the count to {@code now}; one that holds nothing takes {@code policy}'s size.
     *
     * @return false when the count holds nothing and cannot take that size in place (a token bucket):
     *         then the store replaces it with a new one
     */
    abstract boolean prepare(long now, RateLimitPolicy policy);

    /** True when {@code permits} can be spent without passing the limit. Requires {@link #prepare}. */
    abstract boolean has(long now, long permits);

    /** Spends {@code permits}, past the limit if need be (debt). Requires {@link #prepare}. @return the receipt */
    abstract long spend(long now, long permits);

    /**
     * The earliest instant, {@code >= now}, at which {@code permits} can be spent: {@code now} when {@link #has}
     * them; else later, behind every permit reserved already (callers that wait go first come, first served). Requires
     * {@link #prepare}.
     */
    abstract long grantAt(long now, long permits);

    /**
     * Spends {@code permits} at {@code at}, an instant no earlier than {@link #grantAt} said: a reservation, which
     * counts in the step (or at the instant) where the caller goes ahead. Requires {@link #prepare}.
     *
     * @return the receipt
     */
    abstract long spendAt(long now, long at, long permits);

    /** Whole permits left, {@code >= 0}. */
    abstract int remaining(long now);

    /** Nanoseconds until the count is full (bucket) or its oldest permit returns (windows); -1 when nothing is spent. */
    abstract long resetNanos(long now);

    /** Nanoseconds until {@code permits} could be spent: {@code grantAt(now, permits) - now}. Requires {@code !has(now, permits)}. */
    abstract long retryAfterNanos(long now, long permits);

    /** Gives back {@code permits} spent with {@code receipt}, unless they have returned already. */
    abstract void giveBack(long now, long receipt, long permits);

    /** Moves the count to {@code now}; true when it holds nothing (it can be dropped without loss). */
    abstract boolean idle(long now);

    /** Marks the count removed from its table. Requires {@link #idle} (or a count that is being replaced). */
    abstract void evict();

    /** Spins before a waiter for a lock yields its core: the holder may have been descheduled. */
    private static final int SPINS_BEFORE_YIELD = 64;

    /**
     * Sets {@code lockBit} in the long field {@code word} of {@code count}, spinning (then yielding) while another
     * thread holds it, rather than parking for a critical section of a few nanoseconds.
     *
     * @return the word as it was before the bit was set
     */
    static long lockWord(VarHandle word, Count count, long lockBit) {
        long w = (long) word.getOpaque(count);
        if ((w & lockBit) == 0 && word.compareAndSet(count, w, w | lockBit)) {
            return w;
        }
        int spins = 0;
        while (true) {
            w = (long) word.getOpaque(count);
            if ((w & lockBit) == 0 && word.weakCompareAndSetAcquire(count, w, w | lockBit)) {
                return w;
            }
            if (++spins < SPINS_BEFORE_YIELD) {
                Thread.onSpinWait();
            } else {
                spins = 0;
                Thread.yield();
            }
        }
    }

    /** {@code a + b}, saturating at {@code Long.MAX_VALUE} (a charge of absurd size must not wrap). */
    static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    /** {@code a * b} for non-negative operands, saturating at {@code Long.MAX_VALUE}. */
    static long saturatedMultiply(long a, long b) {
        long high = Math.multiplyHigh(a, b);
        long low = a * b;
        return high != 0 || low < 0 ? Long.MAX_VALUE : low;
    }
}
