package dev.ratelimit.core.store;

import dev.ratelimit.core.RateLimitPolicy;
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
            case WINDOW -> readWindow(in, stored[1]);
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
        WindowCount w = (WindowCount) count;
        int steps = w.stepsOut();
        ByteBuffer out = ByteBuffer.allocate(WINDOW_HEADER + 4 * steps + 4 + 12 * (w.reserved == null ? 0 : w.reserved.size()));
        out.put(WINDOW).put((byte) steps).put((byte) flags).put((byte) 0);
        out.putLong(w.anchor).putLong(w.newest).putLong(w.oldest).putInt(w.window).putInt(w.limit).putInt(w.tag);
        for (int x = 0; x < steps; x++) {
            out.putInt(w.slot(x));
        }
        if (w.reserved == null) {
            out.putInt(0);
        } else {
            w.reserved.writeTo(out);
        }
        return out.array();
    }

    /** Bytes of a window before its slots: kind, steps, flags, 0, anchor, newest, oldest, window, limit, tag. */
    private static final int WINDOW_HEADER = 4 + 8 + 8 + 8 + 4 + 4 + 4;

    /** The window after the first 4 bytes; null when the bytes are no such window (another length, impossible values). */
    private static WindowCount readWindow(ByteBuffer in, int steps) {
        if ((steps != 8 && steps != 9) || in.remaining() < WINDOW_HEADER - 4 + 4 * steps + 4) {
            return null;
        }
        WindowCount w = new WindowCount();
        w.anchor = in.getLong();
        w.newest = in.getLong();
        w.oldest = in.getLong();
        w.window = in.getInt();
        w.limit = in.getInt();
        w.tag = in.getInt();
        int seconds = w.window & WindowCount.SECONDS_MASK;
        boolean strict = (w.window & WindowCount.STRICT) != 0;
        if ((w.window & ~(WindowCount.SECONDS_MASK | WindowCount.STRICT)) != 0 || strict != (steps == 9) || seconds < 1
                || seconds > RateLimitPolicy.MAX_WINDOW_SECONDS || w.limit < 1 || w.newest < 0 || w.oldest < 0
                || w.oldest > w.newest) {
            return null;
        }
        long sum = 0;
        for (int x = 0; x < steps; x++) {
            int permits = in.getInt();
            if (permits < 0) {
                return null;
            }
            w.set(x, permits);
            sum += permits;
        }
        w.sum = (int) Math.min(sum, Integer.MAX_VALUE);
        w.reserved = Reservations.readFrom(in, w.newest);
        if (w.reserved == Reservations.MALFORMED || in.hasRemaining()) {
            return null;
        }
        w.restored();
        return w;
    }
}
