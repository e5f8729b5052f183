package dev.ratelimit.internal.engine;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitPolicy;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The count of one (name, partition): permits spent in each of the last eight steps of a sliding
 * window.
 *
 * <p>Invariants. {@code word} packs a lock bit, an evicted bit, a version and the sum of the window;
 * every other field is written only by the holder of the lock ({@link #lock()} / {@link #unlock()};
 * callers hold it for every method but {@link #spendWithoutLock}):
 * <ul>
 *   <li>step {@code j} (0-based from {@code anchor}) spans {@code [anchor + j*step, anchor + (j+1)*step)},
 *       {@code step} being the window / 8; a permit spent in step {@code j} returns at
 *       {@code anchor + (j+8)*step};</li>
 *   <li>slot {@code j % 8} holds the permits spent in step {@code j} for {@code newest-7 <= j < newest};
 *       {@code olderSum} is their sum; the permits of the newest step are the word's sum minus
 *       {@code olderSum} (the lock holder copies them into the newest slot and the sum into
 *       {@code sum}, and folds them back on unlock);</li>
 *   <li>the sum never exceeds {@code limit};</li>
 *   <li>when the sum is above 0, {@code oldest} is the oldest step in the window with a permit spent
 *       (so the reset is one multiplication away, not a scan of the slots);</li>
 *   <li>an empty count (sum 0) holds no information: the next acquire re-anchors it at that moment with
 *       that request's policy, exactly as a count created then would be. That is what makes eviction of
 *       empty counts lossless;</li>
 *   <li>the evicted bit is set once, under the lock, when the store removes the count; an evicted
 *       count is never spent from again ({@link #lock()} tells; a caller that finds it evicted looks
 *       the count up anew);</li>
 *   <li>every unlock changes the version, so a compare-and-set of the word that succeeds proves that
 *       no lock holder ran since the word was read.</li>
 * </ul>
 *
 * <p>Why it looks like this (benchmarks/RESULTS.md has the numbers): the common acquire (not the
 * first of a window, still in the newest step, a permit left) is one compare-and-set of the word that
 * adds one to the sum, validated like an optimistic read: no lock, no division, nothing else written,
 * one cache line. Everything else (a new step, a refusal, re-anchoring, several limits at once,
 * give-back, eviction) takes the lock, a bit of the same word, so the fast path cannot run beside it.
 * A waiter spins, then yields, rather than park for a critical section of a few nanoseconds. Eight int
 * fields rather than an array keep a count at one object of 96 bytes (compressed oops).
 */
public final class SlidingWindowCount {

    /** Steps per window. */
    public static final int STEPS = 8;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long LOCKED = 1L << 63;
    private static final long EVICTED = 1L << 62;
    private static final long VERSION_ONE = 1L << 32;
    private static final long VERSION_MASK = ((1L << 30) - 1) << 32;
    private static final long SUM_MASK = 0xFFFF_FFFFL;
    /** Spins before a waiter yields its core: the holder may have been descheduled. */
    private static final int SPINS_BEFORE_YIELD = 64;
    private static final VarHandle WORD;

    static {
        try {
            WORD = MethodHandles.lookup().findVarHandle(SlidingWindowCount.class, "word", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private long anchor;
    private long stepNanos;
    private long newest;
    private long oldest;
    private int limit;
    /** The sum of the window, while the lock is held. */
    private int sum;
    private int olderSum;
    private int s0, s1, s2, s3, s4, s5, s6, s7;
    /** {@code LOCKED | EVICTED | version (30 bits) | sum (32 bits)}; through {@code WORD} only. */
    @SuppressWarnings("unused")
    private volatile long word;

    /** A count created at {@code now} by a request with {@code policy}. */
    public SlidingWindowCount(long now, RateLimitPolicy policy) {
        reanchor(now, policy);
    }

    /** Nanoseconds in one step of a window of {@code windowSeconds}. Exact: 10^9 is divisible by 8. */
    public static long stepNanos(int windowSeconds) {
        return windowSeconds * (NANOS_PER_SECOND / STEPS);
    }

    /**
     * Spends a permit without the lock, when only the sum moves: the count is neither locked nor
     * evicted, has permits spent in its window (no re-anchoring), {@code now} is in its newest step,
     * and a permit is left.
     *
     * @return true with the outcome in {@code into}; false, with nothing done, when the caller must
     *         take the lock
     */
    public boolean spendWithoutLock(long now, RateLimitDecision.Acquisition into) {
        while (true) {
            long w = (long) WORD.getAcquire(this);
            int spent = (int) (w & SUM_MASK);
            int limit = this.limit;
            if ((w & (LOCKED | EVICTED)) != 0 || spent == 0 || spent >= limit) {
                return false;
            }
            long anchor = this.anchor;
            long stepNanos = this.stepNanos;
            long newest = this.newest;
            long oldest = this.oldest;
            if (now - anchor >= (newest + 1) * stepNanos) {
                return false; // a step has passed: the window rolls under the lock
            }
            // succeeds only if no lock holder ran since w was read: the fields read above are that state
            if (WORD.compareAndSet(this, w, w + 1)) {
                into.set(true, limit - spent - 1, anchor + (oldest + STEPS) * stepNanos - now, anchor + newest * stepNanos);
                return true;
            }
        }
    }

    /**
     * Takes the count's lock, spinning (then yielding) while another thread holds it.
     *
     * @return false, with the lock taken all the same, when the store has evicted the count
     */
    public boolean lock() {
        long w = (long) WORD.getOpaque(this);
        if ((w & LOCKED) != 0 || !WORD.compareAndSet(this, w, w | LOCKED)) {
            w = lockContended();
        }
        sum = (int) (w & SUM_MASK);
        set((int) (newest & (STEPS - 1)), sum - olderSum);
        return (w & EVICTED) == 0;
    }

    private long lockContended() {
        int spins = 0;
        while (true) {
            long w = (long) WORD.getOpaque(this);
            if ((w & LOCKED) == 0 && WORD.weakCompareAndSetAcquire(this, w, w | LOCKED)) {
                return w;
            }
            if (++spins < SPINS_BEFORE_YIELD) {
                Thread.onSpinWait();
            } else {
                spins = 0;
                Thread.yield(); // the holder may have been descheduled
            }
        }
    }

    /** Releases the lock {@link #lock()} took, publishing the sum with a new version. */
    public void unlock() {
        long w = (long) WORD.getOpaque(this);
        olderSum = sum - slot((int) (newest & (STEPS - 1)));
        WORD.setRelease(this, (w & EVICTED) | ((w + VERSION_ONE) & VERSION_MASK) | sum);
    }

    /**
     * Moves the window to {@code now} and, if nothing is spent any more, re-anchors the count at
     * {@code now} with {@code policy}'s size. Call before {@link #hasPermit()} and {@link #spend()}.
     */
    public void prepare(long now, RateLimitPolicy policy) {
        roll(now);
        if (sum == 0) {
            reanchor(now, policy);
        }
    }

    /** True when a permit is left. */
    public boolean hasPermit() {
        return sum < limit;
    }

    /**
     * Spends a permit in the newest step. Requires {@link #hasPermit()}.
     *
     * @return the receipt: the start of the step it was spent in, for {@link #giveBack}
     */
    public long spend() {
        if (sum++ == 0) {
            oldest = newest;
        }
        add((int) (newest & (STEPS - 1)), 1);
        return anchor + newest * stepNanos;
    }

    /** Permits left. */
    public int remaining() {
        return limit - sum;
    }

    /** The permit limit this count was created with. */
    public int limit() {
        return limit;
    }

    /**
     * Nanoseconds from {@code now} until the oldest spent permit returns; {@code -1} when nothing is
     * spent. For a count without permits left, that is when a permit is available again.
     */
    public long nanosUntilOldestReturns(long now) {
        if (sum == 0) {
            return -1;
        }
        return anchor + (oldest + STEPS) * stepNanos - now;
    }

    /**
     * Gives back the permit spent in the step {@code receipt} names, if that step is still in the
     * window. A receipt from before this count's anchor (the count emptied and re-anchored since)
     * names a permit that has returned already and is ignored.
     */
    public void giveBack(long receipt, long now) {
        roll(now);
        long offset = receipt - anchor;
        if (offset < 0 || offset % stepNanos != 0) {
            return;
        }
        long step = offset / stepNanos;
        if (step > newest || step <= newest - STEPS) {
            return;
        }
        int index = (int) (step & (STEPS - 1));
        if (slot(index) > 0) {
            add(index, -1);
            sum--;
            if (sum > 0 && step == oldest && slot(index) == 0) {
                findOldest(step + 1);
            }
        }
    }

    /** Moves the window to {@code now}; true when nothing is spent any more (the count can be dropped). */
    public boolean idle(long now) {
        roll(now);
        return sum == 0;
    }

    /** Marks the count removed from its table. Requires {@link #idle} and the lock. */
    public void evict() {
        WORD.setOpaque(this, (long) WORD.getOpaque(this) | EVICTED);
    }

    private void roll(long now) {
        long elapsed = now - anchor; // a difference: nanoTime readings may wrap
        if (elapsed < (newest + 1) * stepNanos) {
            return; // still in the newest step (or before it): nothing leaves the window
        }
        long step = elapsed / stepNanos;
        if (step - newest >= STEPS) {
            s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0;
            sum = 0;
        } else {
            for (long j = newest + 1; j <= step; j++) {
                int index = (int) (j & (STEPS - 1));
                sum -= slot(index);
                set(index, 0);
            }
            if (sum > 0 && oldest <= step - STEPS) {
                findOldest(step - (STEPS - 1));
            }
        }
        newest = step;
    }

    /** Sets {@code oldest} to the first step from {@code from} on with a permit spent. Requires {@code sum > 0}. */
    private void findOldest(long from) {
        for (long j = from; ; j++) {
            if (slot((int) (j & (STEPS - 1))) > 0) {
                oldest = j;
                return;
            }
        }
    }

    private void reanchor(long now, RateLimitPolicy policy) {
        anchor = now;
        stepNanos = stepNanos(policy.windowSeconds());
        limit = policy.permitLimit();
        newest = 0;
        oldest = 0;
        sum = 0;
        olderSum = 0;
        s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0;
    }

    private int slot(int index) {
        switch (index) {
            case 0: return s0;
            case 1: return s1;
            case 2: return s2;
            case 3: return s3;
            case 4: return s4;
            case 5: return s5;
            case 6: return s6;
            default: return s7;
        }
    }

    private void add(int index, int delta) {
        switch (index) {
            case 0: s0 += delta; break;
            case 1: s1 += delta; break;
            case 2: s2 += delta; break;
            case 3: s3 += delta; break;
            case 4: s4 += delta; break;
            case 5: s5 += delta; break;
            case 6: s6 += delta; break;
            default: s7 += delta; break;
        }
    }

    private void set(int index, int value) {
        switch (index) {
            case 0: s0 = value; break;
            case 1: s1 = value; break;
            case 2: s2 = value; break;
            case 3: s3 = value; break;
            case 4: s4 = value; break;
            case 5: s5 = value; break;
            case 6: s6 = value; break;
            default: s7 = value; break;
        }
    }
}
