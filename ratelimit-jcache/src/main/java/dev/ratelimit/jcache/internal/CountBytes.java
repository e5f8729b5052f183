package dev.ratelimit.jcache.internal;

/**
 * The bytes of a {@link CountValue} in a cache entry (big-endian), so that no class of the library is needed wherever
 * the grid keeps them:
 * <pre>
 *   window  'w', S (8 sliding, 9 strict), flags, 0, anchor (8), step (8), newest (8), limit (4), tag (4),
 *           S slots (4 each: the permits spent in step j at slot j mod S, for newest - S &lt; j &lt;= newest),
 *           r (4), then r pairs (step (8), permits (4)) of steps after newest with permits reserved, in order
 *   bucket  'b', 0, flags, 0, tat (8), epoch (8), interval (8), limit (4), tag (4)
 * </pre>
 * Bytes of another kind, another length or with impossible values decode to null: no count, a new one.
 */
final class CountBytes {

    static final byte WINDOW = 'w';
    static final byte BUCKET = 'b';

    private static final int WINDOW_HEADER = 36;
    private static final int BUCKET_BYTES = 36;

    private CountBytes() {
    }

    /** The count of stored bytes, or null when they hold no count of that kind ({@code null}, another kind, garbage). */
    static CountValue decode(byte[] raw, boolean bucket) {
        if (raw == null || raw.length < 4 || raw[0] != (bucket ? BUCKET : WINDOW)) {
            return null;
        }
        return bucket ? decodeBucket(raw) : decodeWindow(raw);
    }

    /** The count of stored bytes of either kind, or null. */
    static CountValue decode(byte[] raw) {
        if (raw == null || raw.length < 4) {
            return null;
        }
        return raw[0] == BUCKET ? decodeBucket(raw) : raw[0] == WINDOW ? decodeWindow(raw) : null;
    }

    private static CountValue decodeBucket(byte[] raw) {
        if (raw.length != BUCKET_BYTES) {
            return null;
        }
        CountValue c = new CountValue();
        c.bucket = true;
        c.flags = raw[2];
        c.tat = getLong(raw, 4);
        c.epoch = getLong(raw, 12);
        c.interval = getLong(raw, 20);
        c.limit = getInt(raw, 28);
        c.tag = getInt(raw, 32);
        return c.interval > 0 && c.limit > 0 ? c : null;
    }

    private static CountValue decodeWindow(byte[] raw) {
        int steps = raw[1];
        if ((steps != 8 && steps != 9) || raw.length < WINDOW_HEADER + 4 * steps + 4) {
            return null;
        }
        CountValue c = new CountValue();
        c.steps = steps;
        c.flags = raw[2];
        c.anchor = getLong(raw, 4);
        c.step = getLong(raw, 12);
        c.newest = getLong(raw, 20);
        c.limit = getInt(raw, 28);
        c.tag = getInt(raw, 32);
        int at = WINDOW_HEADER;
        for (int x = 0; x < steps; x++, at += 4) {
            c.slots[x] = getInt(raw, at);
            c.sum += c.slots[x];
        }
        int r = getInt(raw, at);
        at += 4;
        if (r < 0 || raw.length != at + 12 * r || c.step <= 0 || c.limit <= 0) {
            return null;
        }
        c.reserve(r);
        for (int i = 0; i < r; i++, at += 12) {
            c.reservedSteps[i] = getLong(raw, at);
            c.reservedPermits[i] = getInt(raw, at + 8);
        }
        c.reservedCount = r;
        return c;
    }

    /**
     * The bytes of count {@code c} as of {@code now}, or null when it holds nothing (the entry is then removed).
     */
    static byte[] encode(CountValue c, long now) {
        if (c.bucket) {
            if (c.tat <= now) {
                return null;
            }
            byte[] raw = new byte[BUCKET_BYTES];
            raw[0] = BUCKET;
            raw[2] = (byte) c.flags;
            putLong(raw, 4, c.tat);
            putLong(raw, 12, c.epoch);
            putLong(raw, 20, c.interval);
            putInt(raw, 28, (int) c.limit);
            putInt(raw, 32, c.tag);
            return raw;
        }
        if (c.sum <= 0 && c.reservedCount == 0) {
            return null;
        }
        byte[] raw = new byte[WINDOW_HEADER + 4 * c.steps + 4 + 12 * c.reservedCount];
        raw[0] = WINDOW;
        raw[1] = (byte) c.steps;
        raw[2] = (byte) c.flags;
        putLong(raw, 4, c.anchor);
        putLong(raw, 12, c.step);
        putLong(raw, 20, c.newest);
        putInt(raw, 28, (int) c.limit);
        putInt(raw, 32, c.tag);
        int at = WINDOW_HEADER;
        for (int x = 0; x < c.steps; x++, at += 4) {
            putInt(raw, at, (int) c.slots[x]);
        }
        putInt(raw, at, c.reservedCount);
        at += 4;
        for (int i = 0; i < c.reservedCount; i++, at += 12) {
            putLong(raw, at, c.reservedSteps[i]);
            putInt(raw, at + 8, (int) c.reservedPermits[i]);
        }
        return raw;
    }

    static long getLong(byte[] b, int at) {
        return ((long) getInt(b, at) << 32) | (getInt(b, at + 4) & 0xFFFF_FFFFL);
    }

    static int getInt(byte[] b, int at) {
        return (b[at] << 24) | ((b[at + 1] & 0xFF) << 16) | ((b[at + 2] & 0xFF) << 8) | (b[at + 3] & 0xFF);
    }

    static void putLong(byte[] b, int at, long v) {
        putInt(b, at, (int) (v >>> 32));
        putInt(b, at + 4, (int) v);
    }

    static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }
}
