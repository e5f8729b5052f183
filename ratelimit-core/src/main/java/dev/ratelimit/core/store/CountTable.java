package dev.ratelimit.core.store;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPolicy;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The counts of one bound key by partition: the in-process store's handle on the key
 * ({@link InProcessRateLimitStore#bind}). The map itself rather than a field of it, so that a request reaches a count
 * one reference sooner. Its entries are added through {@link TrackedCounts}, which bounds them all.
 */
@SuppressWarnings("serial") // never serialized: a handle lives and dies with its store
final class CountTable extends ConcurrentHashMap<String, Count> {

    final CountKey key;
    /** The one partition of a key per application ({@link CountKey#APPLICATION}); null for a key per caller. */
    private final String only;

    CountTable(CountKey key) {
        this.key = key;
        this.only = key.perApplication() ? CountKey.APPLICATION : null;
    }

    /** The partition this table keeps {@code partition}'s count under. */
    String partition(String partition) {
        return only == null ? partition : only;
    }

    /** The count of {@code partition}, or null. */
    Count count(String partition) {
        return get(only == null ? partition : only);
    }

    /** A count of the policy's kind (the key's algorithm may change: live values), sized by it. */
    Count newCount(long now, RateLimitPolicy policy, int tag) {
        Count count = policy.algorithm() == RateLimitAlgorithm.TOKEN_BUCKET ? new BucketCount(now, policy)
                : new WindowCount(now, policy);
        count.tag = tag;
        return count;
    }

    /**
     * Prepares a locked count of this table for a request of {@code policy}: re-sized first when the request carries
     * another sizing tag (live values: {@link Count#adopt}), then moved to {@code now}.
     *
     * @return false when the count was replaced (by one of the new size or kind, or a bucket that held nothing by
     *         one of the request's size): the caller unlocks and looks it up again
     */
    boolean ready(String partition, Count count, RateLimitPolicy policy, int tag, long now) {
        if (count.tag != tag) {
            boolean bucket = policy.algorithm() == RateLimitAlgorithm.TOKEN_BUCKET;
            Count adopted = bucket != (count instanceof BucketCount) ? newCount(now, policy, tag) : count.adopt(now, policy);
            if (adopted != count) {
                adopted.tag = tag;
                count.evict();
                replace(partition(partition), count, adopted);
                return false;
            }
            count.tag = tag;
        }
        if (!count.prepare(now, policy)) {
            count.evict();
            replace(partition(partition), count, newCount(now, policy, tag));
            return false;
        }
        return true;
    }

    @Override
    public String toString() {
        return "CountTable[" + key + ", " + size() + " counts]";
    }
}
