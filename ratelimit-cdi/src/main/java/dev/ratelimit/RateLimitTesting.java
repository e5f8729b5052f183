package dev.ratelimit;

import dev.ratelimit.core.testing.ManualClock;

/**
 * For an application's tests: drive the limiter's clock and forget counts between tests, so that tests of
 * rate-limited code neither sleep nor depend on each other. Inject it in a test
 * ({@code @Inject RateLimitTesting testing;}), or look it up ({@code CDI.current().select(RateLimitTesting.class).get()}).
 *
 * <p>The clock is manual only when the application runs with {@code ratelimit.test.manual-clock=true} (a
 * test profile's setting, e.g. {@code %test.ratelimit.test.manual-clock=true} on Quarkus); the start-up
 * line says so, with a warning, since limits then stand still in time unless a test moves them.
 */
public interface RateLimitTesting {

    /**
     * The limiter's clock.
     *
     * @throws IllegalStateException unless {@code ratelimit.test.manual-clock=true}
     */
    ManualClock clock();

    /**
     * Forgets every count of the in-process store, as if the application had just started (permits given
     * back or spent before do not carry over).
     *
     * @throws UnsupportedOperationException when another store is in use (Redis keeps counts for every
     *         instance; flush its keys instead)
     */
    void reset();
}
