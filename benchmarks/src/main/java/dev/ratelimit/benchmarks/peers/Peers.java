package dev.ratelimit.benchmarks.peers;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.local.LocalBucket;
import io.github.bucket4j.local.SynchronizationStrategy;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import io.smallrye.faulttolerance.api.Guard;
import io.smallrye.faulttolerance.api.RateLimitType;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.function.Supplier;

/**
 * The peers, configured as their documentation shows, each with a limit that the benchmarks never
 * reach ({@link #PERMITS} per {@link #WINDOW}), so that every call measures the allowed path. Each
 * peer keeps its defaults otherwise (Bucket4j's local buckets keep their default millisecond clock).
 */
public final class Peers {

    /** Permits per window: far more than any benchmark spends in one window. */
    public static final int PERMITS = 1_000_000_000;

    /** The window. */
    public static final Duration WINDOW = Duration.ofHours(1);

    /** What a SmallRye guard guards: nothing but the permit. */
    public static final Supplier<Boolean> GUARDED = () -> Boolean.TRUE;

    private Peers() {
    }

    /** A Bucket4j local bucket whose state is guarded by {@code synchronized}. */
    public static LocalBucket bucket4jSynchronized() {
        return bucket4j(SynchronizationStrategy.SYNCHRONIZED, 1);
    }

    /** A Bucket4j local bucket updated by compare-and-swap of an immutable state (Bucket4j's default). */
    public static LocalBucket bucket4jLockFree() {
        return bucket4j(SynchronizationStrategy.LOCK_FREE, 1);
    }

    /** A Bucket4j bucket with {@code limits} bandwidths: Bucket4j's way to apply several limits atomically. */
    public static LocalBucket bucket4j(SynchronizationStrategy strategy, int limits) {
        var builder = Bucket.builder().withSynchronizationStrategy(strategy);
        for (int i = 0; i < limits; i++) {
            Duration window = WINDOW.plusSeconds(i);
            builder.addLimit(limit -> limit.capacity(PERMITS).refillGreedy(PERMITS, window));
        }
        return builder.build();
    }

    /** A Resilience4j {@code AtomicRateLimiter} that refuses at once rather than wait. */
    public static AtomicRateLimiter resilience4jAtomic(String name) {
        return new AtomicRateLimiter(name, RateLimiterConfig.custom()
                .limitForPeriod(PERMITS)
                .limitRefreshPeriod(WINDOW)
                .timeoutDuration(Duration.ZERO)
                .build());
    }

    /**
     * A SmallRye Fault Tolerance guard with a rate limit only, built with the programmatic API of the
     * standalone implementation (no CDI container). {@code FIXED} windows: its {@code ROLLING} type keeps
     * one timestamp per permit, which a limit of {@link #PERMITS} cannot afford.
     */
    public static Guard smallryeRateLimit() {
        return Guard.create()
                .withRateLimit().limit(PERMITS).window(WINDOW.toHours(), ChronoUnit.HOURS).type(RateLimitType.FIXED).done()
                .build();
    }
}
