package dev.ratelimit.jcache.internal;

import java.time.Instant;
import javax.cache.processor.MutableEntry;

/**
 * What one call does to one count: {@link CountProcessor} runs it where the key lives (Hazelcast: on the member that
 * owns it), atomically for that key, on that member's clock; or the store runs {@link #apply} itself between a read
 * and a compare-and-set. The same bytes either way ({@link CountValue}). It travels as {@link #arguments()}, an array
 * of longs, which every grid carries cheaply and without the library's classes.
 *
 * <p>One limit of one request per call: {@link #ACQUIRE} (decide, and spend if allowed; optionally first give back
 * what an earlier call of the same request spent, to spend it again at a later instant), {@link #DECIDE} (the same,
 * spending nothing: a request that another limit refused), {@link #RELEASE} (give back), {@link #INSPECT} (read,
 * spending nothing), {@link #PROBE} (nothing: whether the grid can run this class where the key lives).
 *
 * <p>Replies are arrays of longs, a type every grid carries without the library's classes:
 * <ul>
 *   <li>acquire, decide: state (0 spent, 1 unspent, 2 refused), permits left, microseconds until the oldest permit
 *       returns or the bucket is full (-1: nothing out), microseconds until the request could be allowed (0 unless
 *       refused), receipt ({@link #NO_RECEIPT}: none), microseconds until the call goes (0 unless reserved),
 *       1 when the count should be announced (a give-back freed permits of a count that had refused), else 0;</li>
 *   <li>release: permits given back, announce (as above);</li>
 *   <li>inspect: permits left, reset (as above), debt.</li>
 * </ul>
 *
 * <p>Immutable.
 */
public final class CountCall {

    public static final byte ACQUIRE = 'a';
    public static final byte DECIDE = 'd';
    public static final byte RELEASE = 'r';
    public static final byte INSPECT = 'i';
    public static final byte PROBE = 'p';

    public static final byte SLIDING = 's';
    public static final byte STRICT = 't';
    public static final byte BUCKET = 'b';

    public static final byte KIND_ACQUIRE = 'a';
    public static final byte KIND_SHADOW = 's';
    public static final byte KIND_CHARGE = 'c';

    /** No receipt (nothing spent, nothing to give back). */
    public static final long NO_RECEIPT = Long.MIN_VALUE;
    /** {@link #now}: the clock of the member that runs the call. */
    public static final long OWNERS_CLOCK = Long.MIN_VALUE;

    public static final int STATE_SPENT = 0;
    public static final int STATE_UNSPENT = 1;
    public static final int STATE_REFUSED = 2;

    private static final int ARGUMENTS = 12;

    private final byte op;
    private final byte algorithm;
    private final byte kind;
    private final int tag;
    private final int windowSeconds;
    private final long limit;
    /** The step of a window, or the interval of a bucket, in microseconds. */
    private final long size;
    private final long permits;
    private final long maxWait;
    private final long floor;
    private final long receipt;
    private final long now;

    private CountCall(byte op, byte algorithm, byte kind, int tag, int windowSeconds, long limit, long size,
                      long permits, long maxWait, long floor, long receipt, long now) {
        this.op = op;
        this.algorithm = algorithm;
        this.kind = kind;
        this.tag = tag;
        this.windowSeconds = windowSeconds;
        this.limit = limit;
        this.size = size;
        this.permits = permits;
        this.maxWait = maxWait;
        this.floor = floor;
        this.receipt = receipt;
        this.now = now;
    }

    /**
     * An acquire ({@code spend}) or a decision that spends nothing, of one limit.
     *
     * @param algorithm {@link #SLIDING}, {@link #STRICT} or {@link #BUCKET}
     * @param kind      {@link #KIND_ACQUIRE}, {@link #KIND_SHADOW} or {@link #KIND_CHARGE}
     * @param size      the step of a window, or the interval of a bucket, in microseconds
     * @param maxWait   the longest the call may wait for its permits, microseconds (0: it may not)
     * @param floor     microseconds from now before which the call does not go (another limit of the request waits)
     * @param giveBack  the receipt of {@code permits} spent by an earlier call of the request, given back first; or
     *                  {@link #NO_RECEIPT}
     * @param now       the caller's reading in microseconds, or {@link #OWNERS_CLOCK}
     */
    public static CountCall decide(boolean spend, byte algorithm, byte kind, int tag, int windowSeconds, long limit,
                                   long size, long permits, long maxWait, long floor, long giveBack, long now) {
        return new CountCall(spend ? ACQUIRE : DECIDE, algorithm, kind, tag, windowSeconds, limit, size, permits,
                maxWait, floor, giveBack, now);
    }

    /** Gives back {@code permits} spent with {@code receipt}. */
    public static CountCall release(long receipt, long permits, long now) {
        return new CountCall(RELEASE, (byte) 0, (byte) 0, 0, 0, 0, 0, permits, 0, 0, receipt, now);
    }

    /** Reads the count as a request of this size would find it, spending nothing. */
    public static CountCall inspect(byte algorithm, int tag, int windowSeconds, long limit, long size, long now) {
        return new CountCall(INSPECT, algorithm, KIND_ACQUIRE, tag, windowSeconds, limit, size, 1, 0, 0, NO_RECEIPT, now);
    }

    /** Does nothing; answers {@code {1}} where the grid could load and run it. */
    public static CountCall probe() {
        return new CountCall(PROBE, (byte) 0, (byte) 0, 0, 0, 0, 0, 0, 0, 0, NO_RECEIPT, 0);
    }

    /** The call as it travels to the owner. */
    public long[] arguments() {
        return new long[] {op, algorithm, kind, tag, windowSeconds, limit, size, permits, maxWait, floor, receipt, now};
    }

    /** The call that {@link #arguments()} made. @throws IllegalArgumentException for anything else */
    public static CountCall of(Object[] arguments) {
        if (arguments == null || arguments.length != 1 || !(arguments[0] instanceof long[] a) || a.length != ARGUMENTS) {
            throw new IllegalArgumentException("ratelimit: not the arguments of a count call");
        }
        return new CountCall((byte) a[0], (byte) a[1], (byte) a[2], (int) a[3], (int) a[4], a[5], a[6], a[7], a[8], a[9],
                a[10], a[11]);
    }

    /** Runs the call on the entry, where the grid keeps it: atomically, on this member's clock unless given one. */
    long[] process(MutableEntry<String, byte[]> entry) {
        if (op == PROBE) {
            return new long[] {1};
        }
        long at = now == OWNERS_CLOCK ? ownersClock() : now;
        boolean exists = entry.exists();
        Result result = new Result();
        long[] reply = apply(exists ? entry.getValue() : null, at, result);
        if (result.write) {
            if (result.value != null) {
                entry.setValue(result.value);
            } else if (exists) {
                entry.remove();
            }
        }
        return reply;
    }

    /** What the call wrote: {@code write} false when the entry stays as it was; else {@code value} (null: remove it). */
    public static final class Result {
        public boolean write;
        public byte[] value;
    }

    /** Applies the call to the stored bytes at {@code now} (microseconds). */
    public long[] apply(byte[] raw, long now, Result out) {
        out.write = false;
        out.value = null;
        switch (op) {
            case RELEASE:
                return release(raw, now, out);
            case INSPECT:
                return inspect(raw, now);
            case PROBE:
                return new long[] {1};
            default:
                return decide(raw, now, out);
        }
    }

    private long[] release(byte[] raw, long now, Result out) {
        CountValue c = CountBytes.decode(raw);
        if (c == null) {
            return new long[] {0, 0};
        }
        now = c.notBefore(now);
        c.roll(now);
        long back = c.giveBack(now, receipt, permits);
        long announce = 0;
        if (back > 0) {
            announce = clearRefused(c);
            out.write = true;
            out.value = CountBytes.encode(c, now);
        }
        return new long[] {back, announce};
    }

    private long[] inspect(byte[] raw, long now) {
        Loaded loaded = load(raw, now);
        CountValue c = loaded.count;
        now = loaded.now;
        return new long[] {c.remaining(now), c.reset(now), c.debt(now)};
    }

    /**
     * The count as a request of this call finds it: the receipt to give back first given back (to the count as it
     * was sized, which issued it); re-sized when the request's sizing tag is another (the same window, the new
     * limit with the permits spent kept; another window or algorithm, afresh); sized by the request if it holds
     * nothing.
     */
    private Loaded load(byte[] raw, long now) {
        boolean isBucket = algorithm == BUCKET;
        CountValue c = CountBytes.decode(raw, isBucket);
        int flags = c == null ? 0 : c.flags;
        long given = 0;
        if (c != null) {
            now = c.notBefore(now);
            c.roll(now);
            if (receipt != NO_RECEIPT) {
                given = c.giveBack(now, receipt, permits);
            }
        }
        if (isBucket) {
            if (c != null && c.tag != tag && c.tat > now && !(c.limit == limit && c.interval == size)) {
                // another limit over the same window keeps the share of the capacity out (as in process)
                long out = c.tat - now;
                CountValue b = CountValue.bucket(limit, size, tag, now);
                if ((windowSeconds * 1_000_000L + c.limit - 1) / c.limit == c.interval) {
                    long scaled = out / c.interval * size + (out % c.interval) * size / c.interval;
                    b.tat = now + Math.min(scaled, CountValue.CAP);
                }
                c = b;
            }
            if (c == null || c.tat <= now) {
                c = CountValue.bucket(limit, size, tag, now); // missing or full: sized by this request
            }
        } else {
            int steps = algorithm == STRICT ? 9 : 8;
            if (c != null && c.tag != tag) {
                if (c.steps != steps || c.step != size) {
                    c = null; // another window: its steps (and reservations) mean nothing in the new one
                } else {
                    c.limit = limit; // reservations stay as they are: permits promised already
                }
            }
            if (c == null || c.empty(now)) {
                c = CountValue.window(steps, limit, size, tag, now); // missing or empty: anchored now
            }
        }
        c.tag = tag;
        c.flags = flags;
        return new Loaded(c, now, given);
    }

    private record Loaded(CountValue count, long now, long given) {
    }

    private long[] decide(byte[] raw, long now, Result out) {
        Loaded loaded = load(raw, now);
        CountValue c = loaded.count;
        now = loaded.now;
        boolean changed = loaded.given > 0;
        long announce = changed ? clearRefused(c) : 0;
        boolean all = op == ACQUIRE;
        long goAt = now + floor;
        if (kind == KIND_ACQUIRE && maxWait == 0) {
            all &= c.has(now, permits);
        } else if (kind == KIND_ACQUIRE) {
            long grant = c.grantAt(now, permits);
            all &= grant - now <= maxWait;
            goAt = Math.max(goAt, grant);
        }
        boolean can = kind == KIND_CHARGE || c.has(now, permits);
        long state = STATE_REFUSED;
        long left = 0;
        long retry = 0;
        long spentWith = NO_RECEIPT;
        long wait = 0;
        if (all && kind == KIND_ACQUIRE && goAt > now) {
            // every enforced limit spends where the call goes, in the step (at the instant) of the latest grant
            spentWith = c.spendAt(now, goAt, permits);
            state = STATE_SPENT;
            left = c.remaining(now);
            wait = goAt - now;
        } else if (all && can) {
            spentWith = c.spend(now, permits);
            state = STATE_SPENT;
            left = c.remaining(now);
        } else if (can || (kind == KIND_ACQUIRE && maxWait > 0 && c.grantAt(now, permits) - now <= maxWait)) {
            state = STATE_UNSPENT;
            left = c.remaining(now);
        } else {
            retry = c.grantAt(now, permits) - now;
            if (kind == KIND_ACQUIRE && (c.flags & CountValue.REFUSED) == 0) {
                c.flags |= CountValue.REFUSED;
                changed = true;
            }
        }
        if (state == STATE_SPENT || changed) {
            out.write = true;
            out.value = CountBytes.encode(c, now);
        }
        return new long[] {state, left, c.reset(now), retry, spentWith, wait, announce};
    }

    /** Clears the refused flag: 1 when it was set (the give-back is to be announced). */
    private static long clearRefused(CountValue c) {
        if ((c.flags & CountValue.REFUSED) == 0) {
            return 0;
        }
        c.flags &= ~CountValue.REFUSED;
        return 1;
    }

    /** Microseconds since the epoch on this member's clock. */
    static long ownersClock() {
        Instant t = Instant.now();
        return t.getEpochSecond() * 1_000_000L + t.getNano() / 1_000;
    }

    /** The store's reading of this member's clock, for a call it runs itself. */
    public static long clock() {
        return ownersClock();
    }

    /** The caller's reading given to the call, or {@link #OWNERS_CLOCK}. */
    public long now() {
        return now;
    }

    @Override
    public String toString() {
        return "CountCall[" + (char) op + "]";
    }
}
