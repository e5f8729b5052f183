package dev.ratelimit.quarkus.deployment;

import dev.ratelimit.RateLimit;
import dev.ratelimit.core.RateLimitExceededException;
import dev.ratelimit.core.RateLimitPer;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.faulttolerance.Fallback;
import org.eclipse.microprofile.faulttolerance.Retry;

/**
 * A partner that always fails, behind a limit of 2 calls a minute for the whole application and MicroProfile Fault
 * Tolerance (test only: FaultToleranceAroundTheLimitTest, FaultToleranceOutsideTheLimitTest).
 */
@ApplicationScoped
public class FailingPartner {
    private final AtomicInteger quoteAttempts = new AtomicInteger();
    private final AtomicInteger priceAttempts = new AtomicInteger();

    /** Retried three times, then answered by {@link #cached()}. */
    @RateLimit(name = "partner-quote", permitLimit = 2, windowSeconds = 60, per = RateLimitPer.APPLICATION)
    @Retry(maxRetries = 3, delay = 0, jitter = 0)
    @Fallback(fallbackMethod = "cached")
    public String quote() {
        quoteAttempts.incrementAndGet();
        throw new IllegalStateException("the partner is down");
    }

    String cached() {
        return "cached";
    }

    /** Retried three times, but never after a refusal. */
    @RateLimit(name = "partner-price", permitLimit = 2, windowSeconds = 60, per = RateLimitPer.APPLICATION)
    @Retry(maxRetries = 3, delay = 0, jitter = 0, abortOn = RateLimitExceededException.class)
    public String price() {
        priceAttempts.incrementAndGet();
        throw new IllegalStateException("the partner is down");
    }

    /** How often {@link #quote()}'s body ran (read through the client proxy: its fields are not the bean's). */
    public int quoteAttempts() {
        return quoteAttempts.get();
    }

    /** How often {@link #price()}'s body ran. */
    public int priceAttempts() {
        return priceAttempts.get();
    }
}
