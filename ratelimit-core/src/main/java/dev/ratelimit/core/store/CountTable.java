package dev.ratelimit.core.store;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The counts of one bound key by partition: the in-process store's handle on the key
 * ({@link InProcessRateLimitStore#bind}). The map itself rather than a field of it, so that a request reaches a count
 * one reference sooner. Its entries are added through {@link TrackedCounts}, which bounds them all and gives the
 * table room of its own; a partition longer than {@value PartitionDigest#MAX_BYTES} bytes is kept as a digest
 * ({@link PartitionDigest}).
 *
 * <p>Concurrency: {@code own} and {@code common} are the slots this table's counts hold in its own room and in the
 * room all tables share, changed only by {@link TrackedCounts} with compare-and-set; {@code nextWarning} is a clock
 * reading claimed by compare-and-set.
 */
@SuppressWarnings("serial") // never serialized: a handle lives and dies with its store
final class CountTable extends ConcurrentHashMap<String, Count> {

    private static final AtomicIntegerFieldUpdater<CountTable> OWN =
            AtomicIntegerFieldUpdater.newUpdater(CountTable.class, "own");
    private static final AtomicIntegerFieldUpdater<CountTable> COMMON =
            AtomicIntegerFieldUpdater.newUpdater(CountTable.class, "common");

    final CountKey key;
    /** The one partition of a key per application ({@link CountKey#APPLICATION}); null for a key per caller. */
    private final String only;
    private final PartitionDigest digest;
    /** Slots held in this table's own room. */
    private volatile int own;
    /** Slots held in the room all tables share. */
    private volatile int common;
    /** When this table may warn again that it has no room, as a clock reading. */
    final AtomicLong nextWarning;

    CountTable(CountKey key, PartitionDigest digest, long now) {
        this.key = key;
        this.only = key.perApplication() ? CountKey.APPLICATION : null;
        this.digest = digest;
        this.nextWarning = new AtomicLong(now);
    }

    /** True for the table of a key per application: one count at most. */
    boolean single() {
        return only != null;
    }

    /** The partition this table keeps {@code partition}'s count under. */
    String partition(String partition) {
        return only == null ? digest.stored(partition) : only;
    }

    /** The count of {@code partition}, or null. */
    Count count(String partition) {
        return get(only == null ? digest.stored(partition) : only);
    }

    /**
     * The count of the partition whose stored form is {@code stored} ({@link TrackedCounts#stored}: computed once per
     * request, whatever its number of limits), or null.
     */
    Count countStored(String stored) {
        return get(only == null ? stored : only);
    }

    /** The key this table keeps the count of the partition stored as {@code stored} under. */
    String keyOf(String stored) {
        return only == null ? stored : only;
    }

    /** The in-process store's handle of limit {@code i} of {@code request}: the one cast of a handle in this store. */
    static CountTable of(RateLimitRequest request, int i) {
        return (CountTable) request.handle(i);
    }

    /** Takes a slot of this table's own room if fewer than {@code room} are held. */
    boolean takeOwn(int room) {
        for (int held = own; held < room; held = own) {
            if (OWN.compareAndSet(this, held, held + 1)) {
                return true;
            }
        }
        return false;
    }

    void takeCommon() {
        COMMON.incrementAndGet(this);
    }

    int own() {
        return own;
    }

    /** Gives back a slot of the own room, if one is held. */
    boolean returnOwn() {
        return decrementIfHeld(OWN);
    }

    /** Gives back a slot of the common room, if one is held. */
    boolean returnCommon() {
        return decrementIfHeld(COMMON);
    }

    private boolean decrementIfHeld(AtomicIntegerFieldUpdater<CountTable> slots) {
        for (int held = slots.get(this); held > 0; held = slots.get(this)) {
            if (slots.compareAndSet(this, held, held - 1)) {
                return true;
            }
        }
        return false;
    }

    /** A count of the policy's kind (the key's algorithm may change: live values), sized by it. */
    static Count newCount(long now, RateLimitPolicy policy, int tag) {
        Count count = policy.algorithm() == RateLimitAlgorithm.TOKEN_BUCKET ? new BucketCount(now, policy)
                : new WindowCount(now, policy);
        count.tag = tag;
        return count;
    }

    /**
     * Prepares a locked count of this table, of the partition stored as {@code stored}, for a request of
     * {@code policy}: re-sized first when the request carries another sizing tag (live values: {@link Count#adopt}),
     * then moved to {@code now}.
     *
     * @return false when the count was replaced (by one of the new size or kind, or a bucket that held nothing by
     *         one of the request's size): the caller unlocks and looks it up again
     */
    boolean ready(String stored, Count count, RateLimitPolicy policy, int tag, long now) {
        Count ready = sizedFor(count, policy, tag, now);
        if (ready != count) {
            count.evict();
            replace(keyOf(stored), count, ready);
            return false;
        }
        return true;
    }

    /**
     * A locked count prepared for a request of {@code policy}: re-sized first when the request carries another sizing
     * tag (live values: {@link Count#adopt}), then moved to {@code now}; or the count that replaces it (one of the new
     * size or kind, or a bucket of the request's size for one that held nothing), created at {@code now}, not yet
     * prepared.
     */
    static Count sizedFor(Count count, RateLimitPolicy policy, int tag, long now) {
        if (count.tag != tag) {
            boolean bucket = policy.algorithm() == RateLimitAlgorithm.TOKEN_BUCKET;
            Count adopted = bucket != (count instanceof BucketCount) ? newCount(now, policy, tag) : count.adopt(now, policy);
            if (adopted != count) {
                adopted.tag = tag;
                return adopted;
            }
            count.tag = tag;
        }
        return count.prepare(now, policy) ? count : newCount(now, policy, tag);
    }

    @Override
    public String toString() {
        return "CountTable[" + key + ", " + size() + " counts]";
    }
}
