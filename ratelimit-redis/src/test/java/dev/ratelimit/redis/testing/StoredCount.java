package dev.ratelimit.redis.testing;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A count as the store keeps it in Redis (see {@code counts.lua}), decoded for tests: a window
 * ({@code anchor}, {@code step}, {@code limit}, {@code newest}, then the slots, then a (step, permits) pair per
 * step reserved ahead of the clock) or a bucket ({@code tat}, {@code epoch}, {@code interval}, {@code limit}).
 * Times in microseconds.
 *
 * @param kind   {@code 'w'} or {@code 'b'}
 * @param steps  for a window, the steps a permit stays out (8 sliding, 9 strict); 0 for a bucket
 * @param fields the numbers after the kind (and the steps), in order
 */
public record StoredCount(char kind, int steps, long[] fields) {

    /** A window's bytes without reservations: the kind, the steps, four numbers and the slots. */
    public static int windowBytes(int steps) {
        return 2 + 8 * (4 + steps);
    }

    /** The count at {@code key}, or null when there is none. */
    public static StoredCount read(Resp resp, String key) {
        byte[] raw = resp.bytes("GET", key);
        if (raw == null) {
            return null;
        }
        ByteBuffer buffer = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN);
        char kind = (char) buffer.get();
        int steps = kind == 'w' ? buffer.get() : 0;
        long[] fields = new long[buffer.remaining() / 8];
        for (int i = 0; i < fields.length; i++) {
            fields[i] = (long) buffer.getDouble();
        }
        return new StoredCount(kind, steps, fields);
    }

    /** A window's anchor, a bucket's tat. */
    public long anchorOrTat() {
        return fields[0];
    }

    /** A window's step, a bucket's epoch. */
    public long stepOrEpoch() {
        return fields[1];
    }

    /** A window's newest step. */
    public long newest() {
        return fields[3];
    }

    /** A window's reservations, in order of step: {step, permits} each; none for a bucket. */
    public long[][] reservations() {
        int from = kind == 'w' ? 4 + steps : fields.length;
        long[][] pairs = new long[(fields.length - from) / 2][];
        for (int i = 0; i < pairs.length; i++) {
            pairs[i] = new long[] {fields[from + 2 * i], fields[from + 2 * i + 1]};
        }
        return pairs;
    }

    /**
     * When a window's last permit returns (its last reserved one, if any; else its newest), a bucket is full: when
     * the count comes to hold nothing.
     */
    public long idleAt() {
        if (kind == 'b') {
            return fields[0];
        }
        long[][] reserved = reservations();
        if (reserved.length > 0) {
            return fields[0] + (reserved[reserved.length - 1][0] + steps) * fields[1];
        }
        for (long j = newest(); j > newest() - steps && j >= 0; j--) {
            if (fields[4 + (int) (j % steps)] > 0) {
                return fields[0] + (j + steps) * fields[1];
            }
        }
        return fields[0];
    }
}
