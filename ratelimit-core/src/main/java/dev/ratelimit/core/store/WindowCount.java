package dev.ratelimit.core.store;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitPolicy;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A window count ({@link RateLimitAlgorithm#SLIDING_WINDOW} or {@link RateLimitAlgorithm#STRICT_WINDOW}):
 * permits spent in each of the last steps of a window that moves in steps of one eighth.
 *
 * <p>One job: one count's state and every operation on it. They stay one class because they share one packed word
 * (the lock-free acquire and the lock are bits of it) and the ring's invariants below; the permits reserved by
 * callers that wait, a list of their own, are {@link Reservations}.
 *
 * <p>Concurrency. {@code word} packs a lock bit, an evicted bit, a version and the sum of the window;
 * every other field is written only by the holder of the lock ({@link #lock()} / {@link #unlock()}).
 * <ul>
 *   <li>step {@code j} (0-based from {@code anchor}) spans {@code [anchor + j*step, anchor + (j+1)*step)};
 *       a permit spent in step {@code j} returns at {@code anchor + (j+S)*step}, {@code S} being
 *       {@link #steps()}: 8 (sliding: one window after the step starts) or 9 (strict: one window after
 *       it ends);</li>
 *   <li>slot {@code j % S} holds the permits spent in step {@code j}, for {@code newest-S < j <= newest};
 *       {@code olderSum} is the sum of all but the newest; the permits of the newest step are the word's
 *       sum minus {@code olderSum} (the lock holder copies them into the newest slot and the sum into
 *       {@code sum}, and folds them back on unlock);</li>
 *   <li>the sum exceeds {@code limit} only through a charge (debt); acquiring then waits until it is
 *       back below {@code limit - permits + 1};</li>
 *   <li>when the sum is above 0, {@code oldest} is the oldest step in the window with a permit spent;</li>
 *   <li>an empty count (sum 0) holds no information: the next request re-anchors it at that moment with
 *       that request's size, exactly as a count created then would be. That is what makes eviction of
 *       empty counts lossless;</li>
 *   <li>every unlock changes the version, so a compare-and-set of the word that succeeds proves that no
 *       lock holder ran since the word was read.</li>
 * </ul>
 *
 * <p>Why it looks like this (benchmarks/RESULTS.md has the numbers): the common acquire (not the first
 * of a window, still in the newest step, permits left) is one compare-and-set of the word that adds the
 * permits to the sum, validated like an optimistic read: no lock, no division, one cache line. Anything
 * else takes the lock, a bit of the same word, so the fast path cannot run beside it. A waiter spins,
 * then yields, rather than park for a critical section of a few nanoseconds. Nine int fields rather than
 * an array, and the window with the algorithm packed into one int, keep a count at one object of 96
 * bytes (compressed oops).
 */
final class WindowCount extends Count {

    private static final long STEP_NANOS_PER_SECOND = 125_000_000L; // a step is 1/8 of the window
    /** Set in {@code window} for a strict window. */
    static final int STRICT = 1 << 30;
    static final int SECONDS_MASK = STRICT - 1;
    private static final long LOCKED = 1L << 63;
    private static final long EVICTED = 1L << 62;
    private static final long VERSION_ONE = 1L << 32;
    private static final long VERSION_MASK = ((1L << 30) - 1) << 32;
    private static final long SUM_MASK = 0xFFFF_FFFFL;
    private static final VarHandle WORD;

    static {
        try {
            WORD = MethodHandles.lookup().findVarHandle(WindowCount.class, "word", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // package-private for the stored form alone (StoredCount); every other reader is this class
    long anchor;
    long newest;
    long oldest;
    /** The window in seconds, and {@link #STRICT} for a strict window. */
    int window;
    int limit;
    /** The sum of the window, while the lock is held. */
    int sum;
    private int olderSum;
    private int s0, s1, s2, s3, s4, s5, s6, s7, s8;
    /** Permits reserved in steps after {@code newest} (limits that wait), in order; null when none. */
    Reservations reserved;
    /** {@code LOCKED | EVICTED | version (30 bits) | sum (32 bits)}; through {@code WORD} only. */
    @SuppressWarnings("unused")
    private volatile long word;

    /** A count created at {@code now} by a request with {@code policy}. */
    WindowCount(long now, RateLimitPolicy policy) {
        reanchor(now, policy);
    }

    /** An empty shell for {@link StoredCount} to fill. */
    WindowCount() {
    }

    @Override
    Outcome tryAcquire(long now, long permits, RateLimitPolicy policy) {
        return acquireFast(now, permits, policy, false);
    }

    @Override
    Outcome tryHold(long now, long permits, RateLimitPolicy policy) {
        return acquireFast(now, permits, policy, true);
    }

    @Override
    void releaseHeld(long permits, boolean keep) {
        long w = (long) WORD.getOpaque(this) & ~LOCKED;
        // kept: the newest step's permits are the word's sum minus olderSum, which the fast path leaves alone;
        // undone: the word as it was (nothing else changed, so a compare-and-set that read it before still holds)
        WORD.setRelease(this, keep ? (w & SUM_MASK) | ((w + VERSION_ONE) & VERSION_MASK) : w - permits);
    }

    /** The lock-free acquire; {@code hold}: the word is locked as it takes the permits. */
    private Outcome acquireFast(long now, long permits, RateLimitPolicy policy, boolean hold) {
        while (true) {
            long w = (long) WORD.getAcquire(this);
            int spent = (int) (w & SUM_MASK);
            int limit = this.limit;
            if ((w & (LOCKED | EVICTED)) != 0 || spent == 0 || spent + permits > limit || reserved != null) {
                return null; // callers waiting for later steps go first: a reservation is decided under the lock
            }
            long anchor = this.anchor;
            int window = this.window;
            long newest = this.newest;
            long oldest = this.oldest;
            long step = (window & SECONDS_MASK) * STEP_NANOS_PER_SECOND;
            long at = now - (anchor + newest * step) < 0 ? anchor + newest * step : now; // as notBefore
            if (at - anchor >= (newest + 1) * step) {
                return null; // a step has passed: the window rolls under the lock
            }
            // succeeds only if no lock holder ran since w was read: the fields read above are that state
            if (WORD.compareAndSet(this, w, hold ? (w + permits) | LOCKED : w + permits)) {
                int steps = (window & STRICT) != 0 ? 9 : 8;
                return new Outcome(policy, State.SPENT, (int) (limit - spent - permits),
                        anchor + (oldest + steps) * step - at, 0, anchor + newest * step);
            }
        }
    }

    @Override
    boolean lock() {
        long w = lockWord(WORD, this, LOCKED);
        sum = (int) (w & SUM_MASK);
        set(index(newest), sum - olderSum);
        return (w & EVICTED) == 0;
    }

    @Override
    void unlock() {
        long w = (long) WORD.getOpaque(this);
        olderSum = sum - slot(index(newest));
        WORD.setRelease(this, (w & EVICTED) | ((w + VERSION_ONE) & VERSION_MASK) | (sum & SUM_MASK));
    }

    /** The start of the newest step at the latest: some thread's reading has reached it. */
    @Override
    long notBefore(long now) {
        long newestStart = anchor + newest * step();
        return now - newestStart < 0 ? newestStart : now;
    }

    @Override
    boolean prepare(long now, RateLimitPolicy policy) {
        roll(now);
        if (sum == 0 && reserved == null) {
            reanchor(now, policy);
        }
        return true;
    }

    @Override
    boolean has(long now, long permits) {
        return reserved == null && sum + permits <= limit;
    }

    @Override
    long grantAt(long now, long permits) {
        // fields read once: the loop below then reads only the slots of the steps leaving the window
        long k = newest;
        Reservations r = reserved;
        int limit = this.limit;
        int sum = this.sum;
        long oldest = this.oldest;
        int steps = steps();
        long m = r == null ? k : r.last();
        if (permits > limit) {
            // more than the count's limit (it was sized by another request): once empty, it takes the caller's size
            return anchor + (m + steps) * step();
        }
        // the permits out in the window that ends with step m: the ring's steps (m - S, k], and reservations (k, m]
        long out = m == k ? sum : r.sum(Math.max(k, m - steps) + 1, m) + ringSum(m - steps + 1, k);
        while (out + permits > limit) {
            long leaving = m - steps + 1; // the step that leaves the window as it moves on by one
            if (leaving <= k && sum > 0 && leaving < oldest) {
                m = oldest + steps - 1; // nothing was spent before the oldest step: move the window up to it
                continue;
            }
            out -= leaving > k ? r.at(leaving) : leaving > k - steps ? slot(index(leaving)) : 0;
            m++;
        }
        return m == k ? now : anchor + m * step();
    }

    /** Permits of the ring's steps {@code from..to}, both included (those before the ring count 0). */
    private long ringSum(long from, long to) {
        long sum = 0;
        for (long j = Math.max(from, newest - steps() + 1); j <= to; j++) {
            sum += slot(index(j));
        }
        return sum;
    }

    @Override
    long spendAt(long now, long at, long permits) {
        long m = (at - anchor) / step();
        if (m <= newest) {
            return spend(now, permits);
        }
        if (reserved == null) {
            reserved = new Reservations();
        }
        reserved.add(m, (int) Math.min(permits, Integer.MAX_VALUE));
        return anchor + m * step();
    }

    @Override
    long spend(long now, long permits) {
        if (reserved != null) {
            // a charge while callers wait for later steps: after them, so that no reserved step passes its limit
            long last = reserved.last();
            reserved.add(last, (int) Math.min(permits, Integer.MAX_VALUE));
            return anchor + last * step();
        }
        if (sum == 0) {
            oldest = newest;
        }
        int add = (int) Math.min(permits, Integer.MAX_VALUE - (long) sum); // debt saturates; never wraps
        add(index(newest), add);
        sum += add;
        return anchor + newest * step();
    }

    @Override
    int remaining(long now) {
        return reserved != null ? 0 : Math.max(0, limit - sum); // callers wait: nothing is left for anyone else
    }

    @Override
    long resetNanos(long now) {
        if (sum > 0) {
            return anchor + (oldest + steps()) * step() - now;
        }
        return reserved == null ? -1 : anchor + (reserved.first() + steps()) * step() - now;
    }

    @Override
    long retryAfterNanos(long now, long permits) {
        return grantAt(now, permits) - now;
    }

    @Override
    void giveBack(long now, long receipt, long permits) {
        roll(now);
        long step = step();
        long offset = receipt - anchor;
        if (offset < 0 || offset % step != 0) {
            return; // from before the count was re-anchored: that permit has returned
        }
        long j = offset / step;
        if (j > newest) { // a reservation still ahead of the clock
            if (reserved != null) {
                reserved.takeBack(j, permits);
                if (reserved.isEmpty()) {
                    reserved = null;
                }
            }
            return;
        }
        if (j <= newest - steps()) {
            return;
        }
        int index = index(j);
        int back = (int) Math.min(permits, slot(index));
        if (back > 0) {
            add(index, -back);
            sum -= back;
            if (sum > 0 && j == oldest && slot(index) == 0) {
                findOldest(j + 1);
            }
        }
    }

    @Override
    Count adopt(long now, RateLimitPolicy policy) {
        roll(now);
        int shape = policy.windowSeconds() | (policy.algorithm() == RateLimitAlgorithm.STRICT_WINDOW ? STRICT : 0);
        if (shape != window) {
            reanchor(now, policy); // another window: its steps mean nothing in the new one
        } else {
            limit = policy.permitLimit();
        }
        return this;
    }

    @Override
    long debt(long now) {
        return Math.max(0, (long) sum - limit);
    }

    @Override
    boolean idle(long now) {
        roll(now);
        return sum == 0 && reserved == null;
    }

    @Override
    void evict() {
        WORD.setOpaque(this, (long) WORD.getOpaque(this) | EVICTED);
    }

    /** Steps a permit stays out: 8 (sliding) or 9 (strict). */
    int stepsOut() {
        return steps();
    }

    /** Steps a permit stays out: 8 (sliding) or 9 (strict). */
    private int steps() {
        return (window & STRICT) != 0 ? 9 : 8;
    }

    private long step() {
        return (window & SECONDS_MASK) * STEP_NANOS_PER_SECOND;
    }

    int index(long step) {
        return (window & STRICT) != 0 ? (int) Math.floorMod(step, 9L) : (int) (step & 7);
    }

    private void roll(long now) {
        long step = step();
        long elapsed = now - anchor; // a difference: nanoTime readings may wrap
        if (elapsed < (newest + 1) * step) {
            return; // still in the newest step (or before it): nothing leaves the window
        }
        long current = elapsed / step;
        int steps = steps();
        Reservations r = reserved;
        if (current - newest >= steps) {
            s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = s8 = 0;
            sum = 0;
            for (long j = current - steps + 1; r != null && j <= current; j++) {
                int arrived = r.at(j); // reserved steps the clock has reached join the ring
                set(index(j), arrived);
                sum = saturatedSum(sum, arrived);
            }
        } else {
            for (long j = newest + 1; j <= current; j++) {
                int index = index(j);
                int arrived = r == null ? 0 : r.at(j);
                sum = saturatedSum(sum - slot(index), arrived);
                set(index, arrived);
            }
        }
        newest = current;
        if (r != null) {
            r.dropThrough(current);
            if (r.isEmpty()) {
                reserved = null;
            }
        }
        if (sum > 0 && (r != null || oldest <= current - steps)) {
            findOldest(current - (steps - 1));
        }
    }

    /**
     * {@code sum + arrived}, saturating at {@code Integer.MAX_VALUE}: a reserved step that a charge of absurd size
     * filled joins the ring in debt, as {@link #spend} keeps debt, never wrapping to room.
     */
    private static int saturatedSum(int sum, int arrived) {
        return (int) Math.min((long) sum + arrived, Integer.MAX_VALUE);
    }

    /** Sets {@code oldest} to the first step from {@code from} on with a permit spent. Requires {@code sum > 0}. */
    private void findOldest(long from) {
        for (long j = from; ; j++) {
            if (slot(index(j)) > 0) {
                oldest = j;
                return;
            }
        }
    }

    private void reanchor(long now, RateLimitPolicy policy) {
        anchor = now;
        window = policy.windowSeconds() | (policy.algorithm() == RateLimitAlgorithm.STRICT_WINDOW ? STRICT : 0);
        limit = policy.permitLimit();
        newest = 0;
        oldest = 0;
        sum = 0;
        olderSum = 0;
        s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = s8 = 0;
        reserved = null;
    }

    int slot(int index) {
        switch (index) {
            case 0: return s0;
            case 1: return s1;
            case 2: return s2;
            case 3: return s3;
            case 4: return s4;
            case 5: return s5;
            case 6: return s6;
            case 7: return s7;
            default: return s8;
        }
    }

    private void add(int index, int delta) {
        set(index, slot(index) + delta);
    }

    void set(int index, int value) {
        switch (index) {
            case 0: s0 = value; break;
            case 1: s1 = value; break;
            case 2: s2 = value; break;
            case 3: s3 = value; break;
            case 4: s4 = value; break;
            case 5: s5 = value; break;
            case 6: s6 = value; break;
            case 7: s7 = value; break;
            default: s8 = value; break;
        }
    }

    /**
     * The stored form ({@link StoredCount}, which sets the fields of a count no other thread sees): makes the word and
     * {@code olderSum} what {@link #unlock} would leave for the fields as set, so that {@link #lock} finds them so.
     */
    void restored() {
        olderSum = sum - slot(index(newest));
        WORD.setRelease(this, (long) sum & SUM_MASK);
    }
}
