package dev.ratelimit;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Keeps the counts. The default is the in-process {@code dev.ratelimit.store.InProcessRateLimitStore};
 * replace it with a CDI bean implementing this interface that is an enabled {@code @Alternative}.
 *
 * <p>Contract: a count per (policy name, partition), sliding window of 8 steps of
 * {@code windowSeconds / 8} anchored at the count's creation, a permit returning one window after the
 * start of the step it was spent in, the count's size taken from the policy that created it.
 */
public interface RateLimitStore {

    /**
     * Spends one permit from each policy's count for the partition, or none: all or nothing, atomically.
     * Never blocks; a remote store completes the stage when its answer arrives (or fails it).
     *
     * @param partition the partition, from the {@link RateLimitPartitioner}
     * @param policies  the limits decided together; distinct names; at least one
     * @return a decision with one outcome per policy, in order
     */
    CompletionStage<RateLimitDecision> acquire(String partition, List<RateLimitPolicy> policies);

    /**
     * Gives back every permit the decision spent, each to the step it was spent in (a permit whose
     * step has already left the window is not given back: it has returned already). Never blocks;
     * a failure is logged, not thrown.
     */
    void release(RateLimitDecision decision);
}
