package dev.ratelimit.core.store;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitPolicy;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * A token bucket count ({@link RateLimitAlgorithm#TOKEN_BUCKET}) kept as GCRA: one instant, the
 * theoretical arrival time {@code tat} at which the bucket is full again. With {@code I} the interval
 * between two permits ({@code ceil(window / limit)}, in whole microseconds, so that the rate never
 * exceeds {@code limit} per window) and {@code L = limit * I}:
 * <ul>
 *   <li>{@code n} permits can be spent at {@code now} when {@code max(tat, now) + n*I - now <= L}; spending
 *       moves {@code tat} there (a charge moves it past {@code now + L}: debt);</li>
 *   <li>permits left: {@code floor((L - (max(tat, now) - now)) / I)}; full again in {@code tat - now};</li>
 *   <li>giving back {@code n} moves {@code tat} back by {@code n*I}, never before {@code now}, unless the bucket
 *       has been full since they were spent (then they have returned already): the receipt is the instant
 *       the bucket last stopped being full ({@code epoch}), and a give-back from another epoch is ignored;</li>
 *   <li>a full bucket ({@code tat <= now}) holds no information: it can be dropped, or replaced by one of
 *       another size, without loss.</li>
 * </ul>
 *
 * <p>Arithmetic is on offsets from {@code base} (the creation instant), so that a {@code System.nanoTime}
 * reading that wraps around changes nothing, and on spans capped at 2^62 ns (146 years), so that a charge
 * of absurd size saturates rather than wraps.
 *
 * <p>Concurrency. The size ({@code base}, {@code interval}, {@code limit}) is final: a bucket is never
 * re-sized, the store replaces a full one instead. {@code word} packs a lock bit, an evicted bit and
 * {@code tat - base}; {@code epoch} is written under the lock only. The common acquire on a bucket that is
 * not full, and a refusal, take no lock: one compare-and-set of the word, or none. The lock (spending from a
 * full bucket, a request of several limits, give-back, eviction) is a bit of the same word, so the lock-free
 * path cannot run beside its holder. 48 bytes.
 */
final class BucketCount extends Count {

    private static final long LOCKED = 1L << 63;
    private static final long EVICTED = 1L << 62;
    private static final long OFFSET_MASK = EVICTED - 1;
    private static final VarHandle WORD;

    static {
        try {
            WORD = MethodHandles.lookup().findVarHandle(BucketCount.class, "word", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long base;
    private final long interval;
    private final int limit;
    /** When the bucket last stopped being full; the receipt of the permits spent since. Under the lock. */
    private long epoch;
    /** {@code LOCKED | EVICTED | tat - base}; through {@code WORD} only. */
    @SuppressWarnings("unused")
    private volatile long word;

    /** A full bucket created at {@code now} by a request with {@code policy}. */
    BucketCount(long now, RateLimitPolicy policy) {
        this.base = now;
        this.interval = interval(policy);
        this.limit = policy.permitLimit();
        this.epoch = now;
    }

    private BucketCount(long base, long interval, int limit, long epoch, long tatOffset) {
        this.base = base;
        this.interval = interval;
        this.limit = limit;
        this.epoch = epoch;
        WORD.setRelease(this, tatOffset);
    }

    /**
     * Nanoseconds between two permits of {@code policy}: {@code window / permitLimit} rounded up to whole
     * microseconds (the unit every store can keep exactly; rounding up keeps the rate within the limit).
     */
    static long interval(RateLimitPolicy policy) {
        long windowMicros = policy.windowSeconds() * 1_000_000L;
        return (windowMicros + policy.permitLimit() - 1) / policy.permitLimit() * 1_000L;
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
        // the held spend never saturated: it stayed within the capacity from now
        WORD.setRelease(this, keep ? w : w - span(permits));
    }

    /** The lock-free acquire; {@code hold}: the word is locked as it takes the permits, and nothing is refused. */
    private Outcome acquireFast(long now, long permits, RateLimitPolicy policy, boolean hold) {
        long capacity = limit * interval;
        long span = span(permits);
        while (true) {
            long w = (long) WORD.getAcquire(this);
            if ((w & (LOCKED | EVICTED)) != 0) {
                return null;
            }
            long epoch = this.epoch; // valid if the CAS below succeeds: no lock holder began a new epoch since
            long nowOffset = (now - epoch < 0 ? epoch : now) - base; // as notBefore
            long tatOffset = w & OFFSET_MASK;
            if (tatOffset - nowOffset <= 0) {
                return null; // full: a new epoch begins, under the lock (and perhaps another size)
            }
            long after = Math.min(tatOffset + span, OFFSET_MASK);
            if (after - nowOffset > capacity) {
                return hold ? null : new Outcome(policy, State.REFUSED, 0, tatOffset - nowOffset,
                        after - capacity - nowOffset, RateLimitDecision.NO_RECEIPT);
            }
            if (WORD.compareAndSet(this, w, hold ? after | LOCKED : after)) {
                return new Outcome(policy, State.SPENT, (int) ((capacity - (after - nowOffset)) / interval),
                        after - nowOffset, 0, epoch);
            }
        }
    }

    /** The start of the current epoch at the latest: the reading of the thread that began it. */
    @Override
    long notBefore(long now) {
        return now - epoch < 0 ? epoch : now;
    }

    private boolean sizedLike(RateLimitPolicy policy) {
        return limit == policy.permitLimit() && interval == interval(policy);
    }

    private long span(long permits) {
        return Math.min(saturatedMultiply(permits, interval), OFFSET_MASK);
    }

    @Override
    boolean lock() {
        return (lockWord(WORD, this, LOCKED) & EVICTED) == 0;
    }

    @Override
    void unlock() {
        WORD.setRelease(this, (long) WORD.getOpaque(this) & ~LOCKED);
    }

    /** {@code tat - base}. */
    private long tatOffset() {
        return (long) WORD.getOpaque(this) & OFFSET_MASK;
    }

    /** Requires the lock. */
    private void tatOffset(long offset) {
        long w = (long) WORD.getOpaque(this);
        WORD.setOpaque(this, (w & (LOCKED | EVICTED)) | Math.min(Math.max(offset, 0), OFFSET_MASK));
    }

    /** {@code max(tat, now) - base}. */
    private long fromOffset(long now) {
        return Math.max(tatOffset(), now - base);
    }

    @Override
    boolean prepare(long now, RateLimitPolicy policy) {
        return tatOffset() - (now - base) > 0 || sizedLike(policy);
    }

    @Override
    boolean has(long now, long permits) {
        return Math.min(fromOffset(now) + span(permits), OFFSET_MASK) - (now - base) <= limit * interval;
    }

    @Override
    long spend(long now, long permits) {
        long nowOffset = now - base;
        if (tatOffset() - nowOffset <= 0) {
            epoch = now;
        }
        tatOffset(Math.min(fromOffset(now) + span(permits), OFFSET_MASK));
        return epoch;
    }

    @Override
    long grantAt(long now, long permits) {
        long at = Math.min(fromOffset(now) + span(permits), OFFSET_MASK) - limit * interval;
        return at - (now - base) <= 0 ? now : base + at;
    }

    @Override
    long spendAt(long now, long at, long permits) {
        long nowOffset = now - base;
        if (tatOffset() - nowOffset <= 0) {
            epoch = now;
        }
        // GCRA at the instant the caller goes: the bucket refills until then, and tat encodes the queue behind it
        tatOffset(Math.min(Math.max(tatOffset(), at - base) + span(permits), OFFSET_MASK));
        return epoch;
    }

    @Override
    int remaining(long now) {
        long left = limit * interval - (fromOffset(now) - (now - base));
        return left <= 0 ? 0 : (int) (left / interval);
    }

    @Override
    long resetNanos(long now) {
        long full = tatOffset() - (now - base);
        return full > 0 ? full : -1;
    }

    @Override
    long retryAfterNanos(long now, long permits) {
        long after = Math.min(fromOffset(now) + span(permits), OFFSET_MASK);
        return after - limit * interval - (now - base);
    }

    @Override
    void giveBack(long now, long receipt, long permits) {
        long nowOffset = now - base;
        if (receipt != epoch || tatOffset() - nowOffset <= 0) {
            return; // the bucket has been full since: those permits have returned
        }
        tatOffset(Math.max(tatOffset() - span(permits), nowOffset));
    }

    /**
     * Another limit over the same window: a bucket of the new size holding the same share of its capacity out
     * (the time until full, scaled by the new interval); another window: a full bucket. The size is final, so
     * either way a new bucket replaces this one.
     */
    @Override
    Count adopt(long now, RateLimitPolicy policy) {
        if (sizedLike(policy)) {
            return this;
        }
        BucketCount adopted = new BucketCount(now, policy);
        long out = tatOffset() - (now - base);
        boolean sameWindow = interval(new RateLimitPolicy(policy.name(), limit, policy.windowSeconds(),
                RateLimitAlgorithm.TOKEN_BUCKET)) == interval;
        if (sameWindow && out > 0) {
            long scaled = Math.min(saturatedMultiply(out / interval, adopted.interval)
                    + (out % interval) * adopted.interval / interval, OFFSET_MASK);
            adopted.tatOffset(scaled);
        }
        return adopted;
    }

    @Override
    long debt(long now) {
        long over = tatOffset() - (now - base) - limit * interval;
        return over <= 0 ? 0 : (over + interval - 1) / interval;
    }

    @Override
    boolean idle(long now) {
        return tatOffset() - (now - base) <= 0;
    }

    @Override
    void evict() {
        WORD.setOpaque(this, (long) WORD.getOpaque(this) | EVICTED);
    }

    // ---- the stored form ({@link StoredCount}): off the in-process path, for stores that keep a count as bytes ----

    /** Bytes {@link #writeTo} writes, after {@link StoredCount}'s 4: base, tat - base, epoch, interval, limit, tag. */
    static final int STORED_BYTES = 8 + 8 + 8 + 8 + 4 + 4;

    /** Writes the fields after {@link StoredCount}'s 4 bytes. Requires the lock. */
    void writeTo(ByteBuffer out) {
        out.putLong(base).putLong(tatOffset()).putLong(epoch).putLong(interval).putInt(limit).putInt(tag);
    }

    /** The bucket {@link #writeTo} wrote, unlocked, seen by no other thread; null when the bytes are no bucket. */
    static BucketCount readFrom(ByteBuffer in) {
        if (in.remaining() != STORED_BYTES) {
            return null;
        }
        long base = in.getLong();
        long tatOffset = in.getLong();
        long epoch = in.getLong();
        long interval = in.getLong();
        int limit = in.getInt();
        int tag = in.getInt();
        if (interval <= 0 || limit < 1 || tatOffset < 0 || tatOffset > OFFSET_MASK) {
            return null;
        }
        BucketCount b = new BucketCount(base, interval, limit, epoch, tatOffset);
        b.tag = tag;
        return b;
    }
}
