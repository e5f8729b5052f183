package dev.ratelimit.core.store;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import java.lang.System.Logger.Level;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Eviction: every count of the in-process store, all keys together, and their bound
 * ({@code ratelimit.max-tracked-partitions}). A count is created only when there is room; when the store is full,
 * the counts that hold nothing (every permit returned) are dropped, at most one sweep a second. Such a count holds
 * no information, so dropping it changes no decision. A request that needs a new count while the store is still
 * full is let through uncounted, and a warning is logged at most once a minute.
 *
 * <p>Concurrency: {@code tracked} counts the entries of all tables, reserved before an insert and given back when an
 * entry is removed or loses a race; {@code nextSweep} and {@code nextWarning} are clock readings claimed by CAS;
 * {@code tables} is only added to. A count is removed under its lock, marked evicted first.
 */
final class TrackedCounts {

    private static final System.Logger LOG = System.getLogger(InProcessRateLimitStore.class.getName());
    private static final long SWEEP_INTERVAL_NANOS = 1_000_000_000L;
    private static final long WARNING_INTERVAL_NANOS = 60_000_000_000L;

    private final int maxTracked;
    private final ConcurrentHashMap<String, CountTable> tables = new ConcurrentHashMap<>();
    private final AtomicInteger tracked = new AtomicInteger();
    private final AtomicLong nextSweep;
    private final AtomicLong nextWarning;

    TrackedCounts(int maxTracked, long now) {
        this.maxTracked = maxTracked;
        this.nextSweep = new AtomicLong(now);
        this.nextWarning = new AtomicLong(now);
    }

    int max() {
        return maxTracked;
    }

    /** Counts kept now, all keys together. */
    int size() {
        return tracked.get();
    }

    /** The counts kept and their most, as the {@code ratelimit.counts} gauge. */
    void register(RateLimitMetrics metrics) {
        metrics.counts(tracked::get, maxTracked);
    }

    /**
     * The table of the key's counts; one per name and plan, however often it is bound. Bound again with another
     * algorithm (live values), the same table: each count is replaced by one of the new kind when a request of the
     * new size finds it.
     */
    CountTable table(CountKey key) {
        // a key per application has a table of its own: its per (live values) changed, its counts start afresh
        return tables.computeIfAbsent(key.perApplication() ? key + "#" + CountKey.APPLICATION : key.toString(),
                k -> new CountTable(key));
    }

    /** The count of (table, partition), created if there is room; null when the store is full. */
    Count find(CountTable table, String partition, RateLimitPolicy policy, int tag, long now) {
        Count count = table.count(partition);
        if (count != null) {
            return count;
        }
        if (!reserve(now)) {
            return null;
        }
        Count created = table.newCount(now, policy, tag);
        Count raced = table.putIfAbsent(table.partition(partition), created);
        if (raced != null) {
            tracked.decrementAndGet();
            return raced;
        }
        return created;
    }

    /** Drops the count of {@code partition} from {@code table}, whatever it holds: it starts afresh. */
    void remove(CountTable table, String partition) {
        Count count = table.count(partition);
        if (count != null) {
            evict(count);
            if (table.remove(table.partition(partition), count)) {
                tracked.decrementAndGet();
            }
        }
    }

    /** Drops every count, as if the store were new. Not atomic with requests in flight. */
    void clear() {
        for (CountTable table : tables.values()) {
            table.forEach((partition, count) -> {
                evict(count);
                if (table.remove(partition, count)) {
                    tracked.decrementAndGet();
                }
            });
        }
    }

    private static void evict(Count count) {
        count.lock();
        try {
            count.evict();
        } finally {
            count.unlock();
        }
    }

    private boolean reserve(long now) {
        if (tryReserve()) {
            return true;
        }
        if (claim(nextSweep, now, SWEEP_INTERVAL_NANOS)) {
            sweep(now);
            if (tryReserve()) {
                return true;
            }
        }
        if (claim(nextWarning, now, WARNING_INTERVAL_NANOS)) {
            LOG.log(Level.WARNING, "ratelimit: the in-process store holds " + maxTracked
                    + " counts in use (ratelimit.max-tracked-partitions); requests that need a new count "
                    + "are let through uncounted until counts empty");
        }
        return false;
    }

    private boolean tryReserve() {
        if (tracked.incrementAndGet() <= maxTracked) {
            return true;
        }
        tracked.decrementAndGet();
        return false;
    }

    /** Claims the moment {@code due} if it has come, and sets the next one {@code interval} later. */
    private static boolean claim(AtomicLong due, long now, long interval) {
        long at = due.get();
        return now - at >= 0 && due.compareAndSet(at, now + interval);
    }

    /** Drops every count that holds nothing. */
    private void sweep(long now) {
        for (CountTable table : tables.values()) {
            table.forEach((partition, count) -> {
                boolean dropped;
                boolean live = count.lock();
                try {
                    dropped = live && count.idle(now);
                    if (dropped) {
                        count.evict();
                    }
                } finally {
                    count.unlock();
                }
                if (dropped && table.remove(partition, count)) {
                    tracked.decrementAndGet();
                }
            });
        }
    }
}
