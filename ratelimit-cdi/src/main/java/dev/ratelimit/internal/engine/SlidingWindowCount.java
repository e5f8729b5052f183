package dev.ratelimit.internal.engine;

import dev.ratelimit.RateLimitPolicy;

/**
 * The count of one (name, partition): permits spent in each of the last eight steps of a sliding
 * window.
 *
 * <p>Invariants, all fields guarded by {@code this} (callers hold the monitor for every method):
 * <ul>
 *   <li>step {@code j} (0-based from {@code anchor}) spans {@code [anchor + j*stepNanos, anchor + (j+1)*stepNanos)};
 *       a permit spent in step {@code j} returns at {@code anchor + (j+8)*stepNanos};</li>
 *   <li>slot {@code j % 8} holds the permits spent in step {@code j} for {@code newest-7 <= j <= newest};</li>
 *   <li>{@code sum} is the sum of the slots and never exceeds {@code limit};</li>
 *   <li>an empty count (sum 0) holds no information: the next acquire re-anchors it at that moment with
 *       that request's size, exactly as a count created then would be. That is what makes eviction of
 *       empty counts lossless;</li>
 *   <li>{@code evicted} is set once, when the store removes the count; an evicted count is never spent
 *       from again (a caller that finds it evicted looks the count up anew).</li>
 * </ul>
 * Eight int fields rather than an array keep a count at one small object.
 */
public final class SlidingWindowCount {

    /** Steps per window. */
    public static final int STEPS = 8;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private long anchor;
    private long stepNanos;
    private long newest;
    private int limit;
    private int sum;
    private int s0, s1, s2, s3, s4, s5, s6, s7;
    private boolean evicted;

    /** A count created at {@code now} by a request with {@code policy}. */
    public SlidingWindowCount(long now, RateLimitPolicy policy) {
        reanchor(now, policy);
    }

    /** Nanoseconds in one step of a window of {@code windowSeconds}. Exact: 10^9 is divisible by 8. */
    public static long stepNanos(int windowSeconds) {
        return windowSeconds * (NANOS_PER_SECOND / STEPS);
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
        int index = (int) (newest & (STEPS - 1));
        slot(index, slot(index) + 1);
        sum++;
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
        for (long j = Math.max(0, newest - (STEPS - 1)); j <= newest; j++) {
            if (slot((int) (j & (STEPS - 1))) > 0) {
                return anchor + (j + STEPS) * stepNanos - now;
            }
        }
        throw new IllegalStateException("sum " + sum + " without a spent step");
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
        int spent = slot(index);
        if (spent > 0) {
            slot(index, spent - 1);
            sum--;
        }
    }

    /** Moves the window to {@code now}; true when nothing is spent any more (the count can be dropped). */
    public boolean idle(long now) {
        roll(now);
        return sum == 0;
    }

    public boolean evicted() {
        return evicted;
    }

    /** Marks the count removed from its table. Requires {@link #idle}. */
    public void evict() {
        evicted = true;
    }

    private void roll(long now) {
        long elapsed = now - anchor; // a difference: nanoTime readings may wrap
        long step = elapsed <= 0 ? 0 : elapsed / stepNanos;
        long gap = step - newest;
        if (gap <= 0) {
            return;
        }
        if (gap >= STEPS) {
            s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0;
            sum = 0;
        } else {
            for (long j = newest + 1; j <= step; j++) {
                int index = (int) (j & (STEPS - 1));
                sum -= slot(index);
                slot(index, 0);
            }
        }
        newest = step;
    }

    private void reanchor(long now, RateLimitPolicy policy) {
        anchor = now;
        stepNanos = stepNanos(policy.windowSeconds());
        limit = policy.permitLimit();
        newest = 0;
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

    private void slot(int index, int value) {
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
