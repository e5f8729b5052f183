package dev.ratelimit.core.guard;

import dev.ratelimit.core.RateLimitDecision;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

/** The slice of one site in one partition: its lease, its demand, the store's last answer. */
final class Slice {
    private static final AtomicIntegerFieldUpdater<Slice> TAKING =
            AtomicIntegerFieldUpdater.newUpdater(Slice.class, "taking");
    static final AtomicReferenceFieldUpdater<Slice, SliceLease> LEASE =
            AtomicReferenceFieldUpdater.newUpdater(Slice.class, SliceLease.class, "lease");

    final SliceSite site;
    final String key;
    volatile SliceLease lease;
    /** Announcements of its counts so far: a slice call that saw another number drops what it took. */
    volatile long drops;
    /** 1 while a slice call is out. */
    volatile int taking;
    /** The store's last answer of an allowed call (or any, before the first), and when its call went. */
    volatile RateLimitDecision answer;
    volatile long answeredAt;
    /**
     * Requests seen in the current period of one lease, and in the one before; when the last was seen. Plain fields,
     * racy on purpose: a write lost or seen late only makes a slice smaller or larger by a few permits, within its
     * bounds, and the request path pays no fence for them.
     */
    private long periodStart;
    private int seen;
    private int seenBefore;
    long lastSeen;

    Slice(SliceSite site, String key, long now) {
        this.site = site;
        this.key = key;
        this.periodStart = now;
        this.lastSeen = now;
    }

    /** One more request at {@code now} (racy: a lost increment makes a slice smaller). */
    void seen(long now, long leaseNanos) {
        long start = periodStart;
        long elapsed = now - start;
        if (elapsed >= leaseNanos) {
            seenBefore = elapsed >= 2 * leaseNanos ? 0 : seen;
            seen = 0;
            periodStart = now;
        }
        seen++;
        lastSeen = now;
    }

    /** The requests seen over the last lease. */
    int demand() {
        return Math.max(seen, seenBefore);
    }

    boolean startTaking() {
        return taking == 0 && TAKING.compareAndSet(this, 0, 1);
    }
}
