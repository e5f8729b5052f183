package dev.ratelimit.core.binding;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;

/**
 * The partitions one limit refused most since start-up (the admin API's {@code refused}): Space-Saving (Metwally,
 * Agrawal and El Abbadi, "Efficient computation of frequent and top-k elements in data streams", 2005) with at most
 * {@code capacity} counters. A partition not held takes the place of the one with the fewest refusals and
 * inherits its count as its possible overcount. So memory stays bounded whatever the number of callers, a
 * partition's count is never below its true count nor above it by more than its overcount, and every partition
 * with more than {@code 1/capacity} of the refusals is held.
 *
 * <p>Cost: only a refusal records (the allowed path never touches it), in O(1) for a partition held and
 * O(capacity) for one that takes a place once full (a scan for the fewest: 100 counters, no allocation).
 *
 * <p>Concurrency: every method holds {@code this}; {@code entries} and {@code total} are guarded by it.
 */
public final class RefusalSummary {

    /** Counters per limit: every partition with more than 1% of a limit's refusals is listed. */
    public static final int DEFAULT_CAPACITY = 100;

    private final int capacity;
    private final HashMap<String, Entry> entries;
    private long total;

    public RefusalSummary(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1, was " + capacity);
        }
        this.capacity = capacity;
        this.entries = new HashMap<>(capacity * 2);
    }

    /** One refusal of {@code partition}. */
    public synchronized void refused(String partition) {
        total++;
        Entry entry = entries.get(partition);
        if (entry != null) {
            entry.count++;
            return;
        }
        if (entries.size() < capacity) {
            entries.put(partition, new Entry(partition, 1, 0));
            return;
        }
        Entry fewest = null;
        for (Entry e : entries.values()) {
            if (fewest == null || e.count < fewest.count) {
                fewest = e;
            }
        }
        entries.remove(fewest.partition);
        fewest.overcount = fewest.count;
        fewest.count++;
        fewest.partition = partition;
        entries.put(partition, fewest);
    }

    /**
     * The {@code top} partitions with the most refusals, most first (ties by partition).
     *
     * @param top how many, {@code >= 1}
     */
    public synchronized List<Refused> top(int top) {
        List<Refused> all = new ArrayList<>(entries.size());
        for (Entry e : entries.values()) {
            all.add(new Refused(e.partition, e.count, e.overcount));
        }
        all.sort(Comparator.comparingLong(Refused::count).reversed().thenComparing(Refused::partition));
        return all.size() > top ? List.copyOf(all.subList(0, top)) : List.copyOf(all);
    }

    /** Refusals recorded since start-up. */
    public synchronized long total() {
        return total;
    }

    /** Partitions held, at most the capacity. */
    public synchronized int size() {
        return entries.size();
    }

    public int capacity() {
        return capacity;
    }

    /**
     * A partition and its refusals.
     *
     * @param partition the partition, as the partitioner made it ({@code X-Api-Key:abc}, {@code sub:bob})
     * @param count     refusals counted, at least the true number
     * @param overcount how many of them may belong to partitions it replaced: the true number is between
     *                  {@code count - overcount} and {@code count}
     */
    public record Refused(String partition, long count, long overcount) {
    }

    private static final class Entry {
        String partition;
        long count;
        long overcount;

        Entry(String partition, long count, long overcount) {
            this.partition = partition;
            this.count = count;
            this.overcount = overcount;
        }
    }
}
