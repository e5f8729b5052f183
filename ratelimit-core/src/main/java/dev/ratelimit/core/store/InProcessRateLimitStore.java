package dev.ratelimit.core.store;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.CountState;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

/**
 * The default store: counts in this JVM, so each application instance counts alone. Every algorithm,
 * any number of permits, debt, shadow limits; it always decides at once.
 *
 * <p>Capacity. At most {@code maxTrackedPartitions} counts are kept, all keys together. Each bound key (a limit
 * name and plan) has room of its own, a share of half of them; the other half is common room (so one limit's flood
 * of made-up partitions never leaves another limit without room: {@link TrackedCounts}). When a key has no room,
 * counts that hold nothing (every permit returned) are dropped, at most one sweep a second; such a count holds no
 * information, so dropping it changes no decision. A request that needs a new count while its key still has no
 * room is let through uncounted (remaining = its permit limit), or refused (its window as the retry-after) when the
 * limit counts only failures ({@link CountKey#failuresOnly}); a warning is logged at most once a minute per key. A
 * partition longer than 64 bytes is kept as a keyed digest, so a count's memory does not grow with the key a client
 * sends ({@link PartitionDigest}).
 *
 * <p>Inside, by job: one {@link CountTable} per bound key (its counts by partition), every table bounded together by
 * {@link TrackedCounts} (creation, the sweep, the warning), the decisions and give-backs in {@link CountDecisions}
 * (the locking), and what the admin API reads and restarts in {@link CountAdmin}. Thread-safe.
 */
public final class InProcessRateLimitStore implements RateLimitStore {

    /** Default of {@code ratelimit.max-tracked-partitions}. */
    public static final int DEFAULT_MAX_TRACKED_PARTITIONS = 10_000;

    private final TrackedCounts tracked;
    private final CountDecisions decisions;
    private final CountAdmin admin;

    /** A store on {@code System.nanoTime()} with {@value #DEFAULT_MAX_TRACKED_PARTITIONS} counts at most. */
    public InProcessRateLimitStore() {
        this(DEFAULT_MAX_TRACKED_PARTITIONS, System::nanoTime);
    }

    /**
     * @param maxTrackedPartitions most counts kept, {@code >= 1}
     * @param nanoClock            a monotonic clock in nanoseconds ({@code System::nanoTime})
     */
    public InProcessRateLimitStore(int maxTrackedPartitions, LongSupplier nanoClock) {
        if (maxTrackedPartitions < 1) {
            throw new IllegalArgumentException("maxTrackedPartitions must be >= 1, was " + maxTrackedPartitions);
        }
        this.tracked = new TrackedCounts(maxTrackedPartitions, nanoClock.getAsLong());
        this.decisions = new CountDecisions(nanoClock, tracked);
        this.admin = new CountAdmin(nanoClock, tracked);
    }

    /**
     * The table of the key's counts; one per name and plan, however often it is bound. Bound again with another
     * algorithm (live values), the same table: each count is replaced by one of the new kind when a
     * request of the new size finds it.
     */
    @Override
    public Object bind(CountKey key) {
        return tracked.table(key);
    }

    @Override
    public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
        return CompletableFuture.completedFuture(decide(partition, request, multiple));
    }

    /** Never: this store counts in this JVM only. */
    @Override
    public boolean shared() {
        return false;
    }

    /** Always: this store decides on the caller's thread. */
    @Override
    public boolean answersAtOnce() {
        return true;
    }

    /**
     * {@link #acquire} without the stage. A request of one limit that is allowed allocates nothing but the
     * decision (and its outcome).
     */
    @Override
    public RateLimitDecision decide(String partition, RateLimitRequest request, int multiple) {
        return decisions.decide(partition, request, multiple);
    }

    @Override
    public CompletionStage<Void> release(RateLimitDecision decision) {
        giveBack(decision);
        return CompletableFuture.completedFuture(null);
    }

    /**
     * {@link #release} without the stage. The permits of all the decision's limits come back together: their
     * counts are locked in the same order as for a decision, so no request sees some back and others not.
     */
    public void giveBack(RateLimitDecision decision) {
        decisions.giveBack(decision);
    }

    /** The counts kept and their most, as the {@code ratelimit.counts} gauge. */
    @Override
    public void register(RateLimitMetrics metrics) {
        tracked.register(metrics);
    }

    /** Counts kept now, all keys together: what the {@code ratelimit.counts} gauge reads. */
    int trackedCounts() {
        return tracked.size();
    }

    /** The most counts kept. */
    public int maxTrackedPartitions() {
        return tracked.max();
    }

    /** Forgets every count, as if the store were new (the test API's reset). Not atomic with requests in flight. */
    @Override
    public void clear() {
        tracked.clear();
    }

    /** The count of the request's first limit, moved to now and re-sized as a request would, spending nothing. */
    @Override
    public CompletionStage<CountState> inspect(String partition, RateLimitRequest request) {
        return CompletableFuture.completedFuture(admin.inspect(partition, request));
    }

    /** Forgets the count of the request's first limit in this partition: its next request finds every permit. */
    @Override
    public CompletionStage<Void> restart(String partition, RateLimitRequest request) {
        admin.restart(partition, request);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public String storeName() {
        return "in-process";
    }

    @Override
    public String toString() {
        return "InProcessRateLimitStore(max-tracked-partitions=" + tracked.max() + ")";
    }
}
