package dev.ratelimit.jcache.internal;

import java.util.Arrays;

/**
 * One count, decoded from the bytes a cache entry holds, with the arithmetic of the in-process store
 * ({@code dev.ratelimit.core.store.WindowCount} and {@code BucketCount}) and of the Redis store's script, on
 * microseconds. Mutable; lives for one call, on one thread.
 *
 * <p>Kept as bytes that need no class of the library wherever the grid keeps them ({@link CountBytes}). A permit of
 * window step j returns at {@code anchor + (j + S) * step}; a bucket is full again at {@code tat}
 * (GCRA, {@code interval} per permit), and {@code epoch} is when it last stopped being full (the receipt of the
 * permits spent since). Flags: {@link #REFUSED}, set when the count refuses an enforced limit and cleared when a
 * give-back or a reset could let that caller in again (which is then announced).
 *
 * <p>A count that holds nothing (a window whose permits have all returned, with nothing reserved; a full bucket) is
 * as good as a missing one: the next request sizes it anew. {@link CountBytes#encode} returns null for it, and the
 * entry is removed, which loses nothing.
 */
final class CountValue {

    /** The count refused an enforced limit since the last announcement. */
    static final int REFUSED = 1;
    static final int INT_MAX = Integer.MAX_VALUE;
    /** 2^52 us (142 years): how far past now a bucket in debt may go, as in the Redis store. */
    static final long CAP = 1L << 52;

    boolean bucket;
    int flags;
    int tag;
    long limit;
    // a window
    int steps;
    long anchor;
    long step;
    long newest;
    long sum;
    final long[] slots = new long[9];
    int reservedCount;
    long[] reservedSteps = new long[4];
    long[] reservedPermits = new long[4];
    // a bucket
    long tat;
    long epoch;
    long interval;

    /** A new window of {@code steps} steps, anchored at {@code now}. */
    static CountValue window(int steps, long limit, long step, int tag, long now) {
        CountValue c = new CountValue();
        c.steps = steps;
        c.anchor = now;
        c.step = step;
        c.limit = limit;
        c.tag = tag;
        return c;
    }

    /** A full bucket, whose epoch begins at {@code now}. */
    static CountValue bucket(long limit, long interval, int tag, long now) {
        CountValue c = new CountValue();
        c.bucket = true;
        c.tat = now;
        c.epoch = now;
        c.interval = interval;
        c.limit = limit;
        c.tag = tag;
        return c;
    }

    /**
     * The start of the newest step (window) or of the epoch (bucket) at the latest: an instant some call has
     * reached. Another member's clock, after the key moved, may read a little earlier; taken as it is it would
     * report a reset or a wait longer than the window.
     */
    long notBefore(long now) {
        long reached = bucket ? epoch : anchor + newest * step;
        return now < reached ? reached : now;
    }

    /** Moves a window to {@code now}: steps that left it give their permits back; reserved steps reached join it. */
    void roll(long now) {
        if (bucket) {
            return;
        }
        long elapsed = now - anchor;
        if (elapsed < (newest + 1) * step) {
            return;
        }
        long current = Math.floorDiv(elapsed, step);
        if (current - newest >= steps) {
            Arrays.fill(slots, 0, steps, 0);
            sum = 0;
        } else {
            for (long j = newest + 1; j <= current; j++) {
                int x = index(j);
                sum -= slots[x];
                slots[x] = 0;
            }
        }
        int kept = 0;
        for (int i = 0; i < reservedCount; i++) {
            long j = reservedSteps[i];
            long permits = reservedPermits[i];
            if (j > current) {
                reservedSteps[kept] = j;
                reservedPermits[kept] = permits;
                kept++;
            } else if (j > current - steps) {
                slots[index(j)] = permits;
                sum = Math.min(sum + permits, INT_MAX);
            }
        }
        reservedCount = kept;
        newest = current;
    }

    int index(long j) {
        return (int) Math.floorMod(j, (long) steps);
    }

    /** The oldest step with a permit out; requires {@code sum > 0}. */
    long oldest() {
        for (long j = Math.max(0, newest - steps + 1); j <= newest; j++) {
            if (slots[index(j)] > 0) {
                return j;
            }
        }
        return newest;
    }

    /** True when {@code permits} can be spent at {@code now} without passing the limit (nobody waits ahead). */
    boolean has(long now, long permits) {
        if (bucket) {
            return Math.max(tat, now) + span(permits) - now <= limit * interval;
        }
        return reservedCount == 0 && sum + permits <= limit;
    }

    /** Whole permits left, {@code >= 0}. */
    long remaining(long now) {
        if (bucket) {
            long left = limit * interval - (Math.max(tat, now) - now);
            return left <= 0 ? 0 : left / interval;
        }
        return reservedCount > 0 ? 0 : Math.max(0, limit - sum);
    }

    /** Microseconds until the bucket is full, or the oldest permit returns; -1 when nothing is out. */
    long reset(long now) {
        if (bucket) {
            return tat > now ? tat - now : -1;
        }
        if (sum > 0) {
            return anchor + (oldest() + steps) * step - now;
        }
        return reservedCount > 0 ? anchor + (reservedSteps[0] + steps) * step - now : -1;
    }

    /** Permits spent past the limit (a charge). */
    long debt(long now) {
        if (bucket) {
            long over = tat - now - limit * interval;
            return over > 0 ? (over + interval - 1) / interval : 0;
        }
        return Math.max(0, sum - limit);
    }

    /**
     * The earliest instant, {@code >= now}, at which {@code permits} can be spent: {@code now} when {@link #has}
     * them, else later, behind every permit reserved already (callers that wait go first come, first served).
     */
    long grantAt(long now, long permits) {
        if (bucket) {
            long at = Math.max(tat, now) + span(permits) - limit * interval;
            return Math.max(at, now);
        }
        long k = newest;
        long m = reservedCount > 0 ? reservedSteps[reservedCount - 1] : k;
        if (permits > limit) {
            // more than the count's limit (another request sized it): once empty it takes the caller's size
            return anchor + (m + steps) * step;
        }
        // the permits out in the window that ends with step m: the ring's steps (m - S, k], the reserved ones (k, m]
        long out = 0;
        for (long j = Math.max(0, Math.max(m - steps + 1, k - steps + 1)); j <= k; j++) {
            out += slots[index(j)];
        }
        for (int i = 0; i < reservedCount; i++) {
            if (reservedSteps[i] > m - steps) {
                out += reservedPermits[i];
            }
        }
        int next = 0; // the first reservation that may still be in the window
        while (out + permits > limit) {
            long leaving = m - steps + 1; // the step that leaves the window as it moves on by one
            if (leaving <= k) {
                if (leaving >= 0 && leaving > k - steps) {
                    out -= slots[index(leaving)];
                }
                m++;
            } else {
                // only reservations are left in the window (out > 0, so one is): on to where the next one leaves
                while (reservedSteps[next] < leaving) {
                    next++;
                }
                out -= reservedPermits[next];
                m = reservedSteps[next] + steps;
            }
        }
        return m == k ? now : anchor + m * step;
    }

    /** Spends {@code permits} at {@code now}, past the limit if need be (debt). @return the receipt */
    long spend(long now, long permits) {
        if (bucket) {
            if (tat <= now) {
                epoch = now; // the bucket stops being full: permits spent from now on belong to this epoch
            }
            tat = Math.min(Math.max(tat, now) + span(permits), now + CAP);
            return epoch;
        }
        if (reservedCount > 0) {
            // a charge while callers wait for later steps: after them, so that no reserved step passes its limit
            int last = reservedCount - 1;
            reservedPermits[last] = Math.min(reservedPermits[last] + permits, INT_MAX);
            return anchor + reservedSteps[last] * step;
        }
        long add = Math.min(permits, INT_MAX - sum);
        int x = index(newest);
        slots[x] += add;
        sum += add;
        return anchor + newest * step;
    }

    /** Spends at the instant {@code at} ({@code >=} what {@link #grantAt} said) where the caller goes. @return the receipt */
    long spendAt(long now, long at, long permits) {
        if (bucket) {
            if (tat <= now) {
                epoch = now;
            }
            // GCRA at the instant the caller goes: the bucket refills until then, and tat is the queue behind it
            tat = Math.min(Math.max(tat, at) + span(permits), now + CAP);
            return epoch;
        }
        long j = Math.floorDiv(at - anchor, step);
        if (j <= newest) {
            return spend(now, permits);
        }
        if (reservedCount > 0 && reservedSteps[reservedCount - 1] == j) {
            reservedPermits[reservedCount - 1] = Math.min(reservedPermits[reservedCount - 1] + permits, INT_MAX);
        } else { // first come, first served: a reservation lands in the last reserved step or after it
            reserve(reservedCount + 1);
            reservedSteps[reservedCount] = j;
            reservedPermits[reservedCount] = Math.min(permits, INT_MAX);
            reservedCount++;
        }
        return anchor + j * step;
    }

    /** Gives back {@code permits} spent with {@code receipt}, unless they have returned already. @return how many came back */
    long giveBack(long now, long receipt, long permits) {
        if (bucket) {
            if (receipt != epoch || tat <= now) {
                return 0; // from another epoch, or the bucket has been full since: those permits have returned
            }
            long before = tat;
            tat = Math.max(tat - span(permits), now);
            return (before - tat + interval - 1) / interval; // rounded up: a permit partly refilled was still out
        }
        long offset = receipt - anchor;
        if (offset < 0 || offset % step != 0) {
            return 0; // from before the count was re-anchored: returned already
        }
        long j = offset / step;
        if (j > newest) { // a reservation still ahead of the clock
            for (int i = 0; i < reservedCount; i++) {
                if (reservedSteps[i] == j) {
                    long back = Math.min(permits, reservedPermits[i]);
                    reservedPermits[i] -= back;
                    if (reservedPermits[i] == 0) {
                        System.arraycopy(reservedSteps, i + 1, reservedSteps, i, reservedCount - i - 1);
                        System.arraycopy(reservedPermits, i + 1, reservedPermits, i, reservedCount - i - 1);
                        reservedCount--;
                    }
                    return back;
                }
            }
            return 0;
        }
        if (j <= newest - steps) {
            return 0; // its step has left the window: returned already
        }
        int x = index(j);
        long back = Math.min(permits, slots[x]);
        slots[x] -= back;
        sum -= back;
        return back;
    }

    /** True when the count holds nothing at {@code now}: the next request sizes it anew. */
    boolean empty(long now) {
        return bucket ? tat <= now : sum <= 0 && reservedCount == 0;
    }

    private long span(long permits) {
        long high = Math.multiplyHigh(permits, interval);
        long low = permits * interval;
        return high != 0 || low < 0 || low > CAP ? CAP : low;
    }

    void reserve(int size) {
        if (size > reservedSteps.length) {
            int grown = Math.max(size, reservedSteps.length * 2);
            reservedSteps = Arrays.copyOf(reservedSteps, grown);
            reservedPermits = Arrays.copyOf(reservedPermits, grown);
        }
    }


}
