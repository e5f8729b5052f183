package dev.ratelimit.core.store;

import dev.ratelimit.core.CountState;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import java.util.function.LongSupplier;

/**
 * What the admin API asks of the in-process store: one count read without spending, and one count started afresh.
 * Like a decision, a read moves the count to now and re-sizes it first, under its lock.
 */
final class CountAdmin {

    private final LongSupplier clock;
    private final TrackedCounts tracked;

    CountAdmin(LongSupplier clock, TrackedCounts tracked) {
        this.clock = clock;
        this.tracked = tracked;
    }

    /** {@link InProcessRateLimitStore#inspect}: the count of the request's first limit, spending nothing. */
    CountState inspect(String partition, RateLimitRequest request) {
        CountTable table = CountTable.of(request, 0);
        RateLimitPolicy policy = request.policy(0);
        String stored = tracked.stored(partition);
        while (true) {
            long now = clock.getAsLong();
            Count count = table.countStored(stored);
            if (count == null) {
                return CountState.untouched(policy);
            }
            boolean live = count.lock();
            try {
                if (!live) {
                    continue;
                }
                long at = count.notBefore(now);
                if (!table.ready(stored, count, policy, request.tag(0), at)) {
                    continue;
                }
                return new CountState(policy, count.remaining(at), count.resetNanos(at), count.debt(at));
            } finally {
                count.unlock();
            }
        }
    }

    /** {@link InProcessRateLimitStore#restart}: forgets the count of the request's first limit in this partition. */
    void restart(String partition, RateLimitRequest request) {
        tracked.remove(CountTable.of(request, 0), partition);
    }
}
