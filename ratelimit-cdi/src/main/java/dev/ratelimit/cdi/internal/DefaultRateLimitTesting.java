package dev.ratelimit.cdi.internal;

import dev.ratelimit.RateLimitTesting;
import dev.ratelimit.cdi.RateLimitConfiguration;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.testing.ManualClock;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** The test API ({@link RateLimitTesting}). */
@ApplicationScoped
public class DefaultRateLimitTesting implements RateLimitTesting {

    @Inject
    RateLimitConfiguration configuration;

    @Inject
    RateLimitStore store;

    @Override
    public ManualClock clock() {
        ManualClock clock = configuration.manualClock();
        if (clock == null) {
            throw new IllegalStateException("ratelimit: the clock is manual only with "
                    + RateLimitSettings.TEST_MANUAL_CLOCK + "=true (a test setting)");
        }
        return clock;
    }

    @Override
    public void reset() {
        try {
            store.clear();
        } catch (UnsupportedOperationException e) {
            throw new UnsupportedOperationException("ratelimit: reset() forgets the counts of the in-process store; "
                    + "the store in use is " + store, e);
        }
    }
}
