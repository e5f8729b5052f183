package dev.ratelimit.core.guard;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The counters of {@link RateLimitMetrics#REFUSED_AT_HOME}: one per count bound, by (name, plan), made when a limit
 * binds; read only when a refusal is answered at home ({@link RefusalMemory}). Not an API.
 */
final class RefusedAtHome {

    private final RateLimitMetrics metrics;
    private final ConcurrentHashMap<CountKey, RateLimitMetrics.Counter> counters = new ConcurrentHashMap<>();

    RefusedAtHome(RateLimitMetrics metrics) {
        this.metrics = metrics;
    }

    /** Makes the counter of {@code key}'s limit and plan, once. */
    void bind(CountKey key) {
        counters.computeIfAbsent(key, k -> metrics.refusedAtHome(k.name(), k.plan() == null ? RateLimitMetrics.NO_PLAN : k.plan()));
    }

    /** Counts each limit that refused {@code remembered}, a refusal answered at home. */
    void count(RateLimitDecision remembered) {
        for (int i = 0; i < remembered.size(); i++) {
            if (remembered.refuses(i)) {
                RateLimitMetrics.Counter counter = counters.get(remembered.request().key(i));
                if (counter != null) {
                    counter.increment();
                }
            }
        }
    }
}
