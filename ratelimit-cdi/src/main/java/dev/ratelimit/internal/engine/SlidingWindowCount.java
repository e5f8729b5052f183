package dev.ratelimit.internal.engine;

import dev.ratelimit.RateLimitPolicy;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The count of one (name, partition): permits spent in each of the last eight steps of a sliding
 * window.
 *
 * <p>Invariants, all fields but {@code lock} guarded by the count's own lock ({@link #lock()} /
 * {@link #unlock()}; callers hold it for every other method):
 * <ul>
 *   <li>step {@code j} (0-based from {@code anchor}) spans {@code [anchor + j*step, anchor + (j+1)*step)},
 *       {@code step} being the window / 8; a permit spent in step {@code j} returns at
 *       {@code anchor + (j+8)*step};</li>
 *   <li>slot {@code j % 8} holds the permits spent in step {@code j} for {@code newest-7 <= j <= newest};</li>
 *   <li>{@code sum} is the sum of the slots and never exceeds {@code limit};</li>
 *   <li>when {@code sum > 0}, {@code oldest} is the oldest step in the window with a permit spent
 *       (so the reset is one multiplication away, not a scan of the slots);</li>
 *   <li>an empty count (sum 0) holds no information: the next acquire re-anchors it at that moment with
 *       that request's policy, exactly as a count created then would be. That is what makes eviction of
 *       empty counts lossless;</li>
 *   <li>{@code EVICTED} is set once in {@code lock}, when the store removes the count; an evicted count
 *       is never spent from again ({@link #lock()} tells; a caller that finds it evicted looks the count
 *       up anew).</li>
 * </ul>
 *
 * <p>Why it looks like this (benchmarks/RESULTS.md has the numbers): the acquire that stays in the
 * newest step, the common case, compares and adds; the division that finds the step is done only when
 * a step boundary was crossed; the sizes are copied from the policy so that an acquire reads
 * no other object. The lock is a compare-and-set on one int, released by a plain ordered
 * store: one atomic instruction per acquire instead of the two of an uncontended {@code synchronized}
 * (no biased locking since JDK 15), and no parking of a waiter for a critical section of a few
 * nanoseconds. Eight int fields rather than an array keep a count at one object of 88 bytes
 * (compressed oops).
 */
public final class SlidingWindowCount {

    /** Steps per window. */
    public static final int STEPS = 8;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final int FREE = 0;
    private static final int LOCKED = 1;
    private static final int EVICTED = 2;
    /** Spins before a waiter yields its core: the holder may have been descheduled. */
    private static final int SPINS_BEFORE_YIELD = 64;
    private static final VarHandle LOCK;

    static {
        try {
            LOCK = MethodHandles.lookup().findVarHandle(SlidingWindowCount.class, "lock", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private long anchor;
    private long stepNanos;
    private long newest;
    private long oldest;
    private int limit;
    private int sum;
    private int s0, s1, s2, s3, s4, s5, s6, s7;
    /** {@code LOCKED} and {@code EVICTED} bits; read and written through {@code LOCK} only. */
    @SuppressWarnings("unused")
    private volatile int lock;

    /** A count created at {@code now} by a request with {@code policy}. */
    public SlidingWindowCount(long now, RateLimitPolicy policy) {
        reanchor(now, policy);
    }

    /** Nanoseconds in one step of a window of {@code windowSeconds}. Exact: 10^9 is divisible by 8. */
    public static long stepNanos(int windowSeconds) {
        return windowSeconds * (NANOS_PER_SECOND / STEPS);
    }

    /**
     * Takes the count's lock, spinning (then yielding) while another thread holds it.
     *
     * @return false, with the lock taken all the same, when the store has evicted the count
     */
    public boolean lock() {
        if (LOCK.compareAndSet(this, FREE, LOCKED)) {
            return true; // the common case: one atomic instruction, no read before it
        }
        int spins = 0;
        while (true) {
            int state = (int) LOCK.getOpaque(this);
            if ((state & LOCKED) == 0 && LOCK.weakCompareAndSetAcquire(this, state, state | LOCKED)) {
                return (state & EVICTED) == 0;
            }
            if (++spins < SPINS_BEFORE_YIELD) {
                Thread.onSpinWait();
            } else {
                spins = 0;
                Thread.yield();
            }
        }
    }

    /** Releases the lock {@link #lock()} took. */
    public void unlock() {
        LOCK.setRelease(this, (int) LOCK.getOpaque(this) & ~LOCKED);
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
        LOCK.setOpaque(this, (int) LOCK.getOpaque(this) | EVICTED);
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
