package dev.ratelimit.core.store;

import java.nio.ByteBuffer;

/**
 * The stored form of a {@link Count}: the bytes a store that keeps counts outside this JVM's objects holds for one
 * count ({@link CountCall}), big-endian, needing no class of the library wherever they are kept:
 * <pre>
 *   window  'W', S (8 sliding, 9 strict), flags, 0, anchor (8), newest (8), oldest (8), window (4: seconds, bit 30
 *           set for strict), limit (4), tag (4), S slots (4 each: the permits spent in step j at slot j mod S),
 *           r (4), then r pairs (step (8), permits (4)) of steps after newest with permits reserved, in order
 *   bucket  'B', 0, flags, 0, base (8), tat - base (8), epoch (8), interval (8), limit (4), tag (4)
 * </pre>
 * Instants are readings of the store's clock in nanoseconds, as the in-process store keeps them. Flags: {@link #REFUSED}.
 * A count that holds nothing is stored as no bytes at all (null), which loses nothing: the next request sizes it anew.
 * Bytes of another kind or length, or with impossible values, read as no count (a new one). Not API: the format may
 * change between versions (a count then starts afresh).
 */
final class StoredCount {

    /** The count refused an enforced limit since it was last announced (a give-back may let that caller in). */
    static final int REFUSED = 1;

    private static final byte WINDOW = 'W';
    private static final byte BUCKET = 'B';

    private StoredCount() {
    }

    /** The count of {@code stored}, unlocked and seen by no other thread; null for none (null, garbage). */
    static Count read(byte[] stored) {
        if (stored == null || stored.length < 4) {
            return null;
        }
        ByteBuffer in = ByteBuffer.wrap(stored, 4, stored.length - 4);
        return switch (stored[0]) {
            case WINDOW -> WindowCount.readFrom(in, stored[1]);
            case BUCKET -> stored[1] == 0 ? BucketCount.readFrom(in) : null;
            default -> null;
        };
    }

    /** The flags of {@code stored}: 0 for none. */
    static int flags(byte[] stored) {
        return stored == null || stored.length < 4 ? 0 : stored[2];
    }

    /** The stored form of {@code count}, with {@code flags}; null when it holds nothing at {@code now}. Requires the lock. */
    static byte[] write(Count count, long now, int flags) {
        if (count.idle(now)) {
            return null;
        }
        if (count instanceof BucketCount bucket) {
            ByteBuffer out = ByteBuffer.allocate(4 + BucketCount.STORED_BYTES);
            out.put(BUCKET).put((byte) 0).put((byte) flags).put((byte) 0);
            bucket.writeTo(out);
            return out.array();
        }
        WindowCount window = (WindowCount) count;
        ByteBuffer out = ByteBuffer.allocate(window.storedBytes());
        out.put(WINDOW).put((byte) window.stepsOut()).put((byte) flags).put((byte) 0);
        window.writeTo(out);
        return out.array();
    }
}
