package dev.ratelimit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.RateLimit;
import dev.ratelimit.core.RateLimitExceededException;
import dev.ratelimit.core.RateLimitPer;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.faulttolerance.Fallback;
import org.eclipse.microprofile.faulttolerance.Retry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The other order (docs/fault-tolerance.md, "The order of the two interceptors"): with
 * {@code mp.fault.tolerance.interceptor.priority} below the limit's interceptor, Fault Tolerance is the outer one.
 * Then every attempt of {@code @Retry} is a call of its own that spends a permit, a refusal is retried like any other
 * exception and answered by {@code @Fallback}, and {@code abortOn} exempts a method's refusals from its retries.
 * Pins down a bypass: the interceptor marked an invocation as decided for good, so that every attempt after the first
 * (a refused one included) ran without being decided.
 */
class FaultToleranceOutsideTheLimitTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Partner.class))
            // in application.properties, as an application sets it; Quarkus reads it when the application is built
            .overrideConfigKey("mp.fault.tolerance.interceptor.priority", "1000");


    @Inject
    Partner partner;

    @Test
    void everyAttemptSpendsAPermitAndTheFallbackAnswersTheRefusal() {
        assertThat(partner.quote()).isEqualTo("cached");
        assertThat(partner.attempts()).as("two attempts spent the limit of 2; the next two were refused")
                .isEqualTo(2);
        assertThat(partner.quote()).as("refused four times, answered by the fallback").isEqualTo("cached");
        assertThat(partner.attempts()).isEqualTo(2);
    }

    @Test
    void abortOnKeepsARefusalOutOfTheRetries() {
        assertThatThrownBy(partner::price).as("the third attempt is refused, and abortOn ends the retries there")
                .isInstanceOf(RateLimitExceededException.class);
        assertThat(partner.priceAttempts()).as("two attempts spent the limit of 2").isEqualTo(2);
        assertThatThrownBy(partner::price).as("refused once, not retried").isInstanceOf(RateLimitExceededException.class);
        assertThat(partner.priceAttempts()).isEqualTo(2);
    }

    /** A partner that always fails. */
    @ApplicationScoped
    public static class Partner {
        private final AtomicInteger attempts = new AtomicInteger();
        private final AtomicInteger priceAttempts = new AtomicInteger();

        @RateLimit(name = "partner-quote", permitLimit = 2, windowSeconds = 60, per = RateLimitPer.APPLICATION)
        @Retry(maxRetries = 3, delay = 0, jitter = 0)
        @Fallback(fallbackMethod = "cached")
        public String quote() {
            attempts.incrementAndGet();
            throw new IllegalStateException("the partner is down");
        }

        String cached() {
            return "cached";
        }

        /** How often the method body ran (through the client proxy: its fields are not the bean's). */
        public int attempts() {
            return attempts.get();
        }

        @RateLimit(name = "partner-price", permitLimit = 2, windowSeconds = 60, per = RateLimitPer.APPLICATION)
        @Retry(maxRetries = 3, delay = 0, jitter = 0, abortOn = RateLimitExceededException.class)
        public String price() {
            priceAttempts.incrementAndGet();
            throw new IllegalStateException("the partner is down");
        }

        public int priceAttempts() {
            return priceAttempts.get();
        }
    }
}
