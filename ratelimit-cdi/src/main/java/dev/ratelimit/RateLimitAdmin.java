package dev.ratelimit;

import dev.ratelimit.core.CountState;
import dev.ratelimit.core.binding.RefusalSummary.Refused;
import dev.ratelimit.core.live.LimitAdmin.LimitView;
import java.util.List;

/**
 * Operating limits while the application runs: the effective limits, one caller's count, starting it
 * afresh, and the partitions a limit refused most. Inject it ({@code @Inject RateLimitAdmin admin;}); with
 * {@code ratelimit.admin.enabled=true} the same is served over HTTP under {@code ratelimit.admin.path}.
 *
 * <p>Counts are those of the store in use: with the in-process store, this instance's (each instance counts
 * alone); with Redis, every instance's. The most refused partitions are always this instance's.
 */
public interface RateLimitAdmin {

    /** Every limit declared (annotations, the global limit, configuration), with its values in force now. */
    List<LimitView> limits();

    /**
     * One caller's count of one limit, read without spending.
     *
     * @param name      the limit name
     * @param partition the caller's partition, as the partitioner makes it ({@code X-Api-Key:abc}, {@code sub:bob})
     * @param plan      the caller's plan, or null for callers in no plan
     * @throws IllegalArgumentException naming the limit or the plan when nothing declares it, or the limit is off
     * @throws dev.ratelimit.core.RateLimitStoreException when the store fails or does not answer in time
     */
    CountState count(String name, String partition, String plan);

    /**
     * Starts one caller's count afresh: every permit back, debt forgiven (on Redis, for every instance). Logged
     * with the limit, the partition and {@code requestedBy}.
     *
     * @param requestedBy who asked, for the log
     * @throws IllegalArgumentException as {@link #count}
     * @throws dev.ratelimit.core.RateLimitStoreException as {@link #count}
     */
    void reset(String name, String partition, String plan, String requestedBy);

    /**
     * The partition in which a limit counted per argument ({@code per = ARGUMENT}) counts a value: {@code arg:} and
     * its digest, the value normalised as the limit's {@code @RateLimitKey} normalises it. Pass it to {@link #count}
     * and {@link #reset} to find and reset the count of an account by its name; the value itself is kept nowhere.
     *
     * @param key the value (an account, a phone number)
     * @throws IllegalArgumentException naming the limit when nothing declares it, or when it is not counted per
     *                                  argument (its partitions are callers or addresses, never a value's digest)
     */
    String keyPartition(String name, String key);

    /**
     * The partitions the limit refused most since this instance started, most first, each with its possible
     * overcount (a bounded summary: every partition with more than 1% of the limit's refusals is listed).
     *
     * @param top how many, {@code >= 1}
     * @throws IllegalArgumentException naming the limit when nothing declares it, or when {@code top < 1}
     */
    List<Refused> refused(String name, int top);
}
