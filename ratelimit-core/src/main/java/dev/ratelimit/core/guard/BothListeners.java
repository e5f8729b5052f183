package dev.ratelimit.core.guard;

import dev.ratelimit.core.RateLimitStore;

/** Two listeners of a store's announcements (refusals remembered, slices): both hear every one. Not an API. */
record BothListeners(RateLimitStore.CountListener first, RateLimitStore.CountListener second)
        implements RateLimitStore.CountListener {
    @Override
    public void gained(String name, String plan, String partition) {
        first.gained(name, plan, partition);
        second.gained(name, plan, partition);
    }

    @Override
    public void anyMayHaveGained() {
        first.anyMayHaveGained();
        second.anyMayHaveGained();
    }
}
