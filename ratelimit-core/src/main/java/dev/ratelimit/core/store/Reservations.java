package dev.ratelimit.core.store;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The permits a {@link WindowCount} has reserved in steps still to come (limits that wait), in order of step: waiting
 * callers go first come, first served, so a reservation lands in the last step or after it, and the list only
 * ever grows at its end (a give-back takes from anywhere). Held only while some reservation is ahead of the
 * clock; the count's lock guards it.
 */
final class Reservations {

    private long[] steps = new long[4];
    private int[] permits = new int[4];
    private int size;

    boolean isEmpty() {
        return size == 0;
    }

    /** The first step with a reservation. Requires a reservation. */
    long first() {
        return steps[0];
    }

    /** The last step with a reservation. Requires a reservation. */
    long last() {
        return steps[size - 1];
    }

    /** Adds {@code n} permits in {@code step}, which is the last step or after it. */
    void add(long step, int n) {
        if (size > 0 && steps[size - 1] == step) {
            permits[size - 1] = (int) Math.min((long) permits[size - 1] + n, Integer.MAX_VALUE);
            return;
        }
        if (size == steps.length) {
            steps = Arrays.copyOf(steps, size * 2);
            permits = Arrays.copyOf(permits, size * 2);
        }
        steps[size] = step;
        permits[size] = n;
        size++;
    }

    /** Permits reserved in steps {@code from..to}, both included. */
    long sum(long from, long to) {
        long sum = 0;
        for (int i = 0; i < size && steps[i] <= to; i++) {
            if (steps[i] >= from) {
                sum += permits[i];
            }
        }
        return sum;
    }

    /** Permits reserved in {@code step}. */
    int at(long step) {
        for (int i = 0; i < size && steps[i] <= step; i++) {
            if (steps[i] == step) {
                return permits[i];
            }
        }
        return 0;
    }

    /** Takes back up to {@code n} permits of {@code step}; returns how many. */
    int takeBack(long step, long n) {
        for (int i = 0; i < size; i++) {
            if (steps[i] == step) {
                int back = (int) Math.min(n, permits[i]);
                permits[i] -= back;
                if (permits[i] == 0) {
                    System.arraycopy(steps, i + 1, steps, i, size - i - 1);
                    System.arraycopy(permits, i + 1, permits, i, size - i - 1);
                    size--;
                }
                return back;
            }
        }
        return 0;
    }

    /** Removes the reservations of steps up to {@code step}, included: the clock has reached them. */
    void dropThrough(long step) {
        int k = 0;
        while (k < size && steps[k] <= step) {
            k++;
        }
        if (k > 0) {
            System.arraycopy(steps, k, steps, 0, size - k);
            System.arraycopy(permits, k, permits, 0, size - k);
            size -= k;
        }
    }

    /** Stands for bytes that hold no reservations ({@link #readFrom}). */
    static final Reservations MALFORMED = new Reservations();

    int size() {
        return size;
    }

    /** Writes {@code size}, then each (step, permits): the stored form of a {@link WindowCount}. */
    void writeTo(ByteBuffer out) {
        out.putInt(size);
        for (int i = 0; i < size; i++) {
            out.putLong(steps[i]).putInt(permits[i]);
        }
    }

    /**
     * What {@link #writeTo} wrote: null when none; {@link #MALFORMED} when the bytes are not reservations in order after
     * step {@code newest}.
     */
    static Reservations readFrom(ByteBuffer in, long newest) {
        int n = in.getInt();
        if (n == 0) {
            return null;
        }
        if (n < 0 || in.remaining() != 12L * n) {
            return MALFORMED;
        }
        Reservations r = new Reservations();
        long previous = newest;
        for (int i = 0; i < n; i++) {
            long step = in.getLong();
            int permits = in.getInt();
            if (step <= previous || permits <= 0) {
                return MALFORMED;
            }
            r.add(step, permits);
            previous = step;
        }
        return r;
    }
}
