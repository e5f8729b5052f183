package dev.ratelimit.jcache.internal;

import dev.ratelimit.core.store.CountCall;
import java.time.Instant;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.MutableEntry;

/**
 * The library's entry processor: runs the core's {@link CountCall} on the entry where the grid keeps it (Hazelcast: on
 * the member that owns the key), atomically for that key. An enum, so that it travels as its name alone (Hazelcast
 * writes an enum as its class and constant, without Java serialization's streams); its arguments are the call as
 * {@link CountCall#toLongs()} and the caller's clock reading ({@link #OWNERS_CLOCK}: this member's), and it answers
 * {@link CountCall.Reply#toLongs()}: arrays of longs and a {@code Long}, which every grid carries without the
 * library's classes. No call ({@link #PROBE}, an empty array) answers {@code {1}}: the grid can load and run it there.
 */
public enum CountProcessor implements EntryProcessor<String, byte[], long[]> {

    INSTANCE;

    /** The time argument that means the clock of the member that runs the call. */
    public static final long OWNERS_CLOCK = Long.MIN_VALUE;
    /** The arguments of a probe. */
    public static final Object[] PROBE = {new long[0], OWNERS_CLOCK};

    @Override
    public long[] process(MutableEntry<String, byte[]> entry, Object... arguments) {
        if (arguments == null || arguments.length != 2 || !(arguments[0] instanceof long[] longs)
                || !(arguments[1] instanceof Long now)) {
            throw new IllegalArgumentException("ratelimit: not the arguments of a count call");
        }
        if (longs.length == 0) {
            return new long[] {1};
        }
        boolean exists = entry.exists();
        CountCall.Applied applied = CountCall.ofLongs(longs).apply(exists ? entry.getValue() : null,
                now == OWNERS_CLOCK ? ownersClock() : now);
        if (applied.write()) {
            if (applied.stored() != null) {
                entry.setValue(applied.stored());
            } else if (exists) {
                entry.remove();
            }
        }
        return applied.reply().toLongs();
    }

    /** Nanoseconds since the epoch on this member's clock: the time of a count's calls, shared by every instance. */
    public static long ownersClock() {
        Instant t = Instant.now();
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }
}
