package dev.ratelimit.testing;

import dev.ratelimit.RateLimitPolicy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A naive model of SPEC 3's sliding window, written for obviousness rather than speed, against which
 * stores are compared on randomized schedules. A count is a list of the instants its permits were
 * spent; nothing is packed into slots, nothing rolls.
 *
 * <ul>
 *   <li>A count is anchored where it is created, or re-anchored where a request finds it empty; its
 *       permit limit and window come from the request that (re-)anchored it.</li>
 *   <li>A permit spent at {@code t} returns at {@code anchor + (floor((t - anchor) / step) + 8) * step},
 *       {@code step = window / 8}: one window after the start of its step.</li>
 *   <li>All or nothing: a request spends from every count when each has a permit left, else from none.</li>
 *   <li>A give-back removes its permit if the permit has not returned yet (and the count has not been
 *       re-anchored since, which implies it has returned).</li>
 * </ul>
 *
 * Single-threaded; the caller passes the time of each operation, which must not go back.
 */
public final class ReferenceSlidingWindow {

    /** What the model expects of one limit: like {@code RateLimitDecision.Outcome}, without the receipt. */
    public record Expected(RateLimitPolicy policy, boolean allowed, int remaining, long resetNanos) {
    }

    /** A permit the model spent, for {@link #release}. */
    public record Permit(String name, String partition, long anchor, long spentAt) {
    }

    /** The model's decision: one expectation per policy in order, and the permits spent (none when refused). */
    public record Decision(boolean allowed, List<Expected> outcomes, List<Permit> permits) {
    }

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final Map<List<String>, Count> counts = new HashMap<>();

    /** Decides one request at {@code now}, as a store must. */
    public Decision acquire(long now, String partition, List<RateLimitPolicy> policies) {
        List<Count> touched = new ArrayList<>(policies.size());
        boolean all = true;
        for (RateLimitPolicy policy : policies) {
            Count count = counts.computeIfAbsent(List.of(policy.name(), partition), key -> new Count(now, policy));
            count.dropReturned(now);
            if (count.spentAt.isEmpty()) {
                count.anchor(now, policy);
            }
            all &= count.spentAt.size() < count.limit;
            touched.add(count);
        }
        List<Expected> outcomes = new ArrayList<>(policies.size());
        List<Permit> permits = new ArrayList<>();
        for (int i = 0; i < policies.size(); i++) {
            RateLimitPolicy policy = policies.get(i);
            Count count = touched.get(i);
            if (all) {
                count.spentAt.add(now);
                permits.add(new Permit(policy.name(), partition, count.anchor, now));
            }
            boolean hasPermit = count.spentAt.size() < count.limit || all;
            int remaining = hasPermit ? count.limit - count.spentAt.size() : 0;
            outcomes.add(new Expected(policy, hasPermit, remaining, count.nanosUntilOldestReturns(now)));
        }
        return new Decision(all, outcomes, permits);
    }

    /** Gives back at {@code now} the permits {@code decision} spent. */
    public void release(long now, Decision decision) {
        for (Permit permit : decision.permits()) {
            Count count = counts.get(List.of(permit.name(), permit.partition()));
            if (count == null) {
                continue;
            }
            count.dropReturned(now);
            if (count.anchor == permit.anchor()) {
                count.spentAt.remove(Long.valueOf(permit.spentAt()));
            }
        }
    }

    private static final class Count {
        private long anchor;
        private long stepNanos;
        private int limit;
        private final List<Long> spentAt = new ArrayList<>();

        Count(long now, RateLimitPolicy policy) {
            anchor(now, policy);
        }

        void anchor(long now, RateLimitPolicy policy) {
            anchor = now;
            stepNanos = policy.windowSeconds() * NANOS_PER_SECOND / 8;
            limit = policy.permitLimit();
        }

        long returnsAt(long spent) {
            long step = (spent - anchor) / stepNanos;
            return anchor + (step + 8) * stepNanos;
        }

        void dropReturned(long now) {
            spentAt.removeIf(spent -> returnsAt(spent) - now <= 0);
        }

        long nanosUntilOldestReturns(long now) {
            long oldest = Long.MAX_VALUE;
            for (long spent : spentAt) {
                oldest = Math.min(oldest, returnsAt(spent) - now);
            }
            return spentAt.isEmpty() ? -1 : oldest;
        }
    }
}
