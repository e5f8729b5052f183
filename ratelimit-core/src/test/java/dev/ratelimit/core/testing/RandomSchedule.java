package dev.ratelimit.core.testing;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.testing.ReferenceModel.Item;
import java.util.List;
import java.util.Random;

/**
 * A seeded source of random traffic for comparing stores with {@link ReferenceModel} and with each other:
 * clock advances (often none, often exact multiples of half a step, sometimes seconds), requests over a
 * few limits of every algorithm (one name shared by two sizes, requests of one to three limits, costs,
 * charges into debt, shadow limits, a plan's counts beside the plan-less ones, several permits at once),
 * partitions from a small pool that drifts over time (with an occasional return to a long-unused one),
 * and give-backs of earlier allowed decisions.
 *
 * <p>The same seed gives the same schedule, provided the caller asks in the same order.
 */
public final class RandomSchedule {

    private static final RateLimitPolicy BURST = new RateLimitPolicy("burst", 2, 1);
    private static final RateLimitPolicy EIGHT = new RateLimitPolicy("eight", 4, 8);
    private static final RateLimitPolicy SHARED_SMALL = new RateLimitPolicy("shared", 2, 4);
    private static final RateLimitPolicy SHARED_BIG = new RateLimitPolicy("shared", 3, 2);
    private static final RateLimitPolicy STRICT = new RateLimitPolicy("strict", 3, 2, RateLimitAlgorithm.STRICT_WINDOW);
    private static final RateLimitPolicy BUCKET = new RateLimitPolicy("bucket", 3, 3, RateLimitAlgorithm.TOKEN_BUCKET);
    private static final RateLimitPolicy BUCKET_OTHER = new RateLimitPolicy("bucket", 5, 1, RateLimitAlgorithm.TOKEN_BUCKET);
    private static final RateLimitPolicy COSTLY = new RateLimitPolicy("costly", 10, 4);

    private static final List<List<Item>> REQUESTS = List.of(
            List.of(new Item(BURST)),
            List.of(new Item(EIGHT)),
            List.of(new Item(SHARED_SMALL)),
            List.of(new Item(SHARED_BIG)),
            List.of(new Item(STRICT)),
            List.of(new Item(BUCKET)),
            List.of(new Item(BUCKET_OTHER)),
            List.of(new Item(COSTLY, null, 4, Kind.ACQUIRE)),
            List.of(new Item(BURST), new Item(EIGHT)),
            List.of(new Item(EIGHT), new Item(BURST)),
            List.of(new Item(SHARED_BIG), new Item(BURST)),
            List.of(new Item(EIGHT), new Item(SHARED_SMALL), new Item(BURST)),
            List.of(new Item(STRICT), new Item(BUCKET), new Item(BURST)),
            List.of(new Item(BUCKET), new Item(COSTLY, null, 3, Kind.ACQUIRE)),
            List.of(new Item(BURST, "gold", 1, Kind.ACQUIRE)),
            List.of(new Item(BURST, "gold", 1, Kind.ACQUIRE), new Item(BUCKET, "gold", 2, Kind.ACQUIRE)),
            List.of(new Item(EIGHT, null, 1, Kind.SHADOW), new Item(BURST)),
            List.of(new Item(STRICT, null, 1, Kind.SHADOW)),
            List.of(new Item(COSTLY, null, 3, Kind.CHARGE)),
            List.of(new Item(BUCKET, null, 2, Kind.CHARGE)));

    private static final long WAIT = 1_500_000_000L;
    private static final RateLimitPolicy PARTNER = new RateLimitPolicy("partner", 3, 1, RateLimitAlgorithm.STRICT_WINDOW);
    /** One count for every partition (limits that share a name agree on it, so a name of its own). */
    private static final RateLimitPolicy APPLICATION = new RateLimitPolicy("application-wide", 2, 1);

    /** Requests of limits that wait, beside the same limits' callers that do not, charges and shadows. */
    private static final List<List<Item>> WAITING_REQUESTS = List.of(
            List.of(Item.waiting(PARTNER, WAIT)),
            List.of(Item.waiting(PARTNER, WAIT)),
            List.of(Item.waiting(PARTNER, WAIT / 3)),
            List.of(new Item(PARTNER)),
            List.of(Item.waiting(BURST, WAIT)),
            List.of(new Item(BURST)),
            List.of(Item.waiting(BUCKET, WAIT)),
            List.of(Item.waiting(EIGHT, 4 * WAIT)),
            List.of(Item.waiting(PARTNER, WAIT), Item.waiting(BUCKET, WAIT)),
            List.of(Item.waiting(BURST, WAIT), new Item(EIGHT)),
            List.of(Item.waiting(PARTNER, WAIT), new Item(BURST, null, 1, Kind.SHADOW)),
            List.of(new Item(PARTNER, null, 1, Kind.SHADOW)),
            List.of(new Item(PARTNER, null, 2, Kind.CHARGE)),
            List.of(new Item(APPLICATION, null, 1, Kind.ACQUIRE, WAIT, true)),
            List.of(new Item(APPLICATION, null, 1, Kind.ACQUIRE, 0, true), new Item(BURST)),
            List.of(new Item(COSTLY, null, 3, Kind.ACQUIRE, WAIT, false)));

    private static final int LIVE_PARTITIONS = 3;
    private static final int OPERATIONS_PER_DRIFT = 150;
    private static final long STEP_OF_ONE_SECOND = 125_000_000L;

    private final Random random;
    private final String partitionPrefix;
    private final long resolutionNanos;
    private final List<List<Item>> requests;
    private int operation;

    /**
     * @param seed            the schedule
     * @param partitionPrefix put before every partition (to keep tests on a shared store apart)
     * @param resolutionNanos every advance is a multiple of it (1 for a nanosecond store)
     */
    public RandomSchedule(long seed, String partitionPrefix, long resolutionNanos) {
        this(seed, partitionPrefix, resolutionNanos, REQUESTS);
    }

    private RandomSchedule(long seed, String partitionPrefix, long resolutionNanos, List<List<Item>> requests) {
        this.random = new Random(seed);
        this.partitionPrefix = partitionPrefix;
        this.resolutionNanos = resolutionNanos;
        this.requests = requests;
    }

    /** A schedule whose requests are mostly of limits that wait, mixed with callers that do not. */
    public static RandomSchedule withWaits(long seed, String partitionPrefix, long resolutionNanos) {
        return new RandomSchedule(seed, partitionPrefix, resolutionNanos, WAITING_REQUESTS);
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
    public List<Item> nextItems() {
        return requests.get(random.nextInt(requests.size()));
    }

    /** The multiple of the next request: mostly 1, sometimes 2. */
    public int nextMultiple() {
        return random.nextInt(6) == 0 ? 2 : 1;
    }
}
