package dev.ratelimit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.RateLimitExceededException;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
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
            .withApplicationRoot(jar -> jar.addClasses(FailingPartner.class))
            // in application.properties, as an application sets it; Quarkus reads it when the application is built
            .overrideConfigKey("mp.fault.tolerance.interceptor.priority", "1000");

    @Inject
    FailingPartner partner;

    @Test
    void everyAttemptSpendsAPermitAndTheFallbackAnswersTheRefusal() {
        assertThat(partner.quote()).isEqualTo("cached");
        assertThat(partner.quoteAttempts()).as("two attempts spent the limit of 2; the next two were refused")
                .isEqualTo(2);
        assertThat(partner.quote()).as("refused four times, answered by the fallback").isEqualTo("cached");
        assertThat(partner.quoteAttempts()).isEqualTo(2);
    }

    @Test
    void abortOnKeepsARefusalOutOfTheRetries() {
        assertThatThrownBy(partner::price).as("the third attempt is refused, and abortOn ends the retries there")
                .isInstanceOf(RateLimitExceededException.class);
        assertThat(partner.priceAttempts()).as("two attempts spent the limit of 2").isEqualTo(2);
        assertThatThrownBy(partner::price).as("refused once, not retried").isInstanceOf(RateLimitExceededException.class);
        assertThat(partner.priceAttempts()).isEqualTo(2);
    }
}
