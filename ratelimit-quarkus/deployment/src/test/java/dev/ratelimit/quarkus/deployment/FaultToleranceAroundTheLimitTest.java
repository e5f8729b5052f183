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
 * MicroProfile Fault Tolerance (SmallRye's, on Quarkus) on a bean method that carries {@code @RateLimit}, in the
 * default order of the two interceptors: the limit's is the outer one (docs/fault-tolerance.md, "The order of the
 * two interceptors"). A call spends one permit however often {@code @Retry} runs the method inside it, and a refusal
 * reaches the caller past {@code @Retry} and {@code @Fallback}.
 */
class FaultToleranceAroundTheLimitTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Partner.class));

    @Inject
    Partner partner;

    @Test
    void retriesRunInsideOnePermitAndARefusalIsNeitherRetriedNorAnsweredByTheFallback() {
        assertThat(partner.quote()).isEqualTo("cached");
        assertThat(partner.attempts()).as("the first call and its three retries").isEqualTo(4);
        assertThat(partner.quote()).isEqualTo("cached");
        assertThat(partner.attempts()).isEqualTo(8);

        assertThatThrownBy(partner::quote).as("the third call: the limit of 2 refuses it")
                .isInstanceOf(RateLimitExceededException.class);
        assertThat(partner.attempts()).as("a refused call never reaches @Retry or the method").isEqualTo(8);
    }

    /** A partner that always fails: Fault Tolerance retries it and falls back to a cached answer. */
    @ApplicationScoped
    public static class Partner {
        private final AtomicInteger attempts = new AtomicInteger();

        @RateLimit(name = "partner-default-order", permitLimit = 2, windowSeconds = 60, per = RateLimitPer.APPLICATION)
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
    }
}
