package dev.ratelimit.core.store;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import java.lang.System.Logger.Level;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every count of the in-process store, all keys together, and their bound ({@code ratelimit.max-tracked-partitions}).
 *
 * <p>Room: half the bound (rounded down) is shared out among the bound tables, one table per (limit name, plan), as
 * room of their own; the rest is common room that any table may use. A table of a key per application holds one
 * count, so its own room is one slot; the others share the rest equally. A new count takes a slot of its table's own
 * room while there is one, else a slot of the common room. So a limit whose partitions a client makes up by the
 * thousand (a header, an address) fills its own room and the common room, never another limit's own room: a new
 * count of limit A never finds the store full because limit B's partitions took it (docs/stores.md, "Capacity").
 * A table bound after counts were made shrinks the others' share: a table holding more of its own room than its new
 * share gives those slots back first, so the budget of own rooms (half the bound) is never exceeded and the new
 * table gets its room as the others' counts empty.
 *
 * <p>Eviction: a count is created only when there is room; when a table has none, the counts that hold nothing (every
 * permit returned) are dropped from every table, at most one sweep a second. Such a count holds no information, so
 * dropping it changes no decision. A request that needs a new count while its table still has no room is let
 * through uncounted, or refused when its limit counts only failures (the store decides which); either is logged
 * at most once a minute per table.
 *
 * <p>Concurrency: {@code own} and {@code common} count the slots held in the own rooms of all tables and in the common
 * room, each taken by increment-and-check (given back when over its bound) before an insert and given back when an
 * entry is removed or loses a race; each table counts its own slots ({@link CountTable#takeOwn}); {@code share} is
 * written only under {@code this} when a table is made, read without it; {@code nextSweep} is a clock reading
 * claimed by CAS; {@code tables} is only added to. A count is removed under its lock, marked evicted first.
 */
final class TrackedCounts {

    private static final System.Logger LOG = System.getLogger(InProcessRateLimitStore.class.getName());
    private static final long SWEEP_INTERVAL_NANOS = 1_000_000_000L;
    private static final long WARNING_INTERVAL_NANOS = 60_000_000_000L;

    private final int maxTracked;
    /** The slots shared out as the tables' own rooms: half the bound. */
    private final int ownMax;
    /** The common room: the rest of the bound. */
    private final int commonMax;
    private final long start;
    private final PartitionDigest digest = new PartitionDigest();
    private final ConcurrentHashMap<String, CountTable> tables = new ConcurrentHashMap<>();
    private final AtomicInteger own = new AtomicInteger();
    private final AtomicInteger common = new AtomicInteger();
    /** The own room of each table per partition (a table per application has one slot). */
    private volatile int share;
    private final AtomicLong nextSweep;

    TrackedCounts(int maxTracked, long now) {
        this.maxTracked = maxTracked;
        this.ownMax = maxTracked / 2;
        this.commonMax = maxTracked - ownMax;
        this.start = now;
        this.nextSweep = new AtomicLong(now);
    }

    int max() {
        return maxTracked;
    }

    /** Counts kept now, all keys together. */
    int size() {
        return own.get() + common.get();
    }

    /** The own room of each table per partition now. */
    int share() {
        return share;
    }

    /** The counts kept and their most, as the {@code ratelimit.counts} gauge. */
    void register(RateLimitMetrics metrics) {
        metrics.counts(this::size, maxTracked);
    }

    /**
     * The table of the key's counts; one per name and plan, however often it is bound. Bound again with another
     * algorithm (live values), the same table: each count is replaced by one of the new kind when a request of the
     * new size finds it.
     */
    CountTable table(CountKey key) {
        // a key per application has a table of its own: its per (live values) changed, its counts start afresh
        String name = key.perApplication() ? key + "#" + CountKey.APPLICATION : key.toString();
        CountTable table = tables.get(name);
        if (table != null) {
            return table;
        }
        synchronized (this) {
            table = tables.computeIfAbsent(name, k -> new CountTable(key, digest, start));
            int single = 0;
            for (CountTable t : tables.values()) {
                single += t.single() ? 1 : 0;
            }
            int many = tables.size() - single;
            share = many == 0 ? 0 : Math.max(0, ownMax - single) / many;
            return table;
        }
    }

    /** What the store keeps {@code partition}'s counts under, in every table ({@link PartitionDigest}). */
    String stored(String partition) {
        return digest.stored(partition);
    }

    /**
     * The count of limit {@code i} of {@code request} in the partition stored as {@code stored} ({@link #stored}),
     * created if there is room.
     *
     * @return the count; null when its table has no room
     */
    Count find(CountTable table, String stored, RateLimitRequest request, int i, long now) {
        Count count = table.countStored(stored);
        if (count != null) {
            return count;
        }
        // whether the request is refused without room (a limit that counts only failures) matters only now
        if (!reserve(table, now, CountDecisions.refusesWithoutRoom(request, i))) {
            return null;
        }
        Count created = CountTable.newCount(now, request.policy(i), request.tag(i));
        Count raced = table.putIfAbsent(table.keyOf(stored), created);
        if (raced != null) {
            release(table);
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
                release(table);
            }
        }
    }

    /** Drops every count, as if the store were new. Not atomic with requests in flight. */
    void clear() {
        for (CountTable table : tables.values()) {
            table.forEach((partition, count) -> {
                evict(count);
                if (table.remove(partition, count)) {
                    release(table);
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

    private boolean reserve(CountTable table, long now, boolean refuses) {
        if (tryReserve(table)) {
            return true;
        }
        if (claim(nextSweep, now, SWEEP_INTERVAL_NANOS)) {
            sweep(now);
            if (tryReserve(table)) {
                return true;
            }
        }
        if (claim(table.nextWarning, now, WARNING_INTERVAL_NANOS)) {
            LOG.log(Level.WARNING, "ratelimit: the in-process store has no room for a new count of the limit "
                    + table.key + ": its own room (" + room(table) + " counts) and the room all limits share ("
                    + commonMax + " of ratelimit.max-tracked-partitions=" + maxTracked + ") hold counts in use; "
                    + (refuses ? "it counts only failures, so requests that need a new count are refused (429) until "
                    + "counts empty" : "requests that need a new count are let through uncounted until counts empty"));
        }
        return false;
    }

    private int room(CountTable table) {
        return table.single() ? Math.min(1, ownMax) : share;
    }

    /** A slot of the table's own room, else one of the common room; false when neither has one. */
    private boolean tryReserve(CountTable table) {
        if (table.takeOwn(room(table))) {
            if (own.incrementAndGet() <= ownMax) {
                return true;
            }
            // the budget of own rooms is held by tables over a share that has shrunk since (a table was bound)
            own.decrementAndGet();
            table.returnOwn();
        }
        if (common.incrementAndGet() <= commonMax) {
            table.takeCommon();
            return true;
        }
        common.decrementAndGet();
        return false;
    }

    /**
     * Gives back the slot of a count removed from {@code table}: its own room first while it holds more of it than its
     * share (the share shrank), else the common room first, so that room others can use returns soonest.
     */
    private void release(CountTable table) {
        while (true) {
            if (table.own() > room(table) && table.returnOwn()) {
                own.decrementAndGet();
                return;
            }
            if (table.returnCommon()) {
                common.decrementAndGet();
                return;
            }
            if (table.returnOwn()) {
                own.decrementAndGet();
                return;
            }
            Thread.onSpinWait(); // a slot taken for this entry is still being recorded
        }
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
                    release(table);
                }
            });
        }
    }
}
