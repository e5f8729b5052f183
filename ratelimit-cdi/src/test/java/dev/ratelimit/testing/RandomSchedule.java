package dev.ratelimit.testing;

import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitScope;
import java.util.List;
import java.util.Random;

/**
 * A seeded source of random traffic for comparing stores with {@link ReferenceSlidingWindow} and with
 * each other: clock advances (often none, often exact multiples of a step, sometimes seconds), requests
 * over a few limits (one name shared by two sizes, requests with one to three limits), partitions from
 * a small pool that drifts over time (with an occasional return to a long-unused partition), and
 * give-backs of earlier allowed decisions.
 *
 * <p>The same seed gives the same schedule, provided the caller asks in the same order.
 */
public final class RandomSchedule {

    public static final RateLimitPolicy BURST = policy("burst", 2, 1);
    public static final RateLimitPolicy EIGHT = policy("eight", 4, 8);
    public static final RateLimitPolicy SHARED_SMALL = policy("shared", 2, 4);
    public static final RateLimitPolicy SHARED_BIG = policy("shared", 3, 2);

    /** The longest window of any policy here; a count untouched this long has no permit out. */
    public static final long LONGEST_WINDOW_NANOS = 8_000_000_000L;

    private static final List<List<RateLimitPolicy>> REQUESTS = List.of(
            List.of(BURST),
            List.of(EIGHT),
            List.of(SHARED_SMALL),
            List.of(SHARED_BIG),
            List.of(BURST, EIGHT),
            List.of(EIGHT, BURST),
            List.of(SHARED_BIG, BURST),
            List.of(EIGHT, SHARED_SMALL, BURST));

    private static final int LIVE_PARTITIONS = 3;
    private static final int OPERATIONS_PER_DRIFT = 150;
    private static final long STEP_OF_ONE_SECOND = 125_000_000L;

    private final Random random;
    private final String partitionPrefix;
    private final long resolutionNanos;
    private int operation;

    /**
     * @param seed            the schedule
     * @param partitionPrefix put before every partition (to keep tests on a shared store apart)
     * @param resolutionNanos every advance is a multiple of it (1 for a nanosecond store)
     */
    public RandomSchedule(long seed, String partitionPrefix, long resolutionNanos) {
        this.random = new Random(seed);
        this.partitionPrefix = partitionPrefix;
        this.resolutionNanos = resolutionNanos;
    }

    /** How far the clock moves before the next operation, in nanoseconds. */
    public long nextAdvanceNanos() {
        operation++;
        int kind = random.nextInt(100);
        long nanos;
        if (kind < 20) {
            nanos = 0;
        } else if (kind < 50) {
            nanos = (STEP_OF_ONE_SECOND / 2) * random.nextInt(5);
        } else if (kind < 85) {
            nanos = random.nextLong(200_000_000L);
        } else if (kind < 97) {
            nanos = random.nextLong(2_000_000_000L);
        } else {
            nanos = random.nextLong(12_000_000_000L);
        }
        return nanos / resolutionNanos * resolutionNanos;
    }

    /** True when the next operation gives back an earlier allowed decision rather than acquiring. */
    public boolean nextIsRelease() {
        return random.nextInt(4) == 0;
    }

    /** Which of {@code size} unreleased allowed decisions (oldest first) to give back: mostly a recent one. */
    public int nextReleaseIndex(int size) {
        if (random.nextInt(10) < 7) {
            return size - 1 - random.nextInt(Math.min(size, 8));
        }
        return random.nextInt(size);
    }

    /** The partition of the next request. */
    public String nextPartition() {
        int base = operation / OPERATIONS_PER_DRIFT;
        int index = random.nextInt(33) == 0 ? random.nextInt(base + 1) : base + random.nextInt(LIVE_PARTITIONS);
        return partitionPrefix + "p" + index;
    }

    /** The limits of the next request. */
    public List<RateLimitPolicy> nextPolicies() {
        return REQUESTS.get(random.nextInt(REQUESTS.size()));
    }

    private static RateLimitPolicy policy(String name, int permitLimit, int windowSeconds) {
        return new RateLimitPolicy(name, permitLimit, windowSeconds, RateLimitScope.TRANSPORT);
    }
}
