package dev.ratelimit.ownstore;

import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.testing.ManualClock;
import dev.ratelimit.core.testing.RateLimitStoreContract;

/**
 * A store written outside the core's packages, against its public API alone, is the same limiter as the in-process
 * and the shared stores: the store contract, with no change to the core.
 */
class MapRateLimitStoreTest extends RateLimitStoreContract {

    @Override
    protected RateLimitStore newStore(ManualClock clock) {
        return new MapRateLimitStore(clock::now);
    }
}
