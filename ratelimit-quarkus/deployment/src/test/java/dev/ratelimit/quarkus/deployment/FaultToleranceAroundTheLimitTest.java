package dev.ratelimit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.RateLimitExceededException;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
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
            .withApplicationRoot(jar -> jar.addClasses(FailingPartner.class));

    @Inject
    FailingPartner partner;

    @Test
    void retriesRunInsideOnePermitAndARefusalIsNeitherRetriedNorAnsweredByTheFallback() {
        assertThat(partner.quote()).isEqualTo("cached");
        assertThat(partner.quoteAttempts()).as("the first call and its three retries").isEqualTo(4);
        assertThat(partner.quote()).isEqualTo("cached");
        assertThat(partner.quoteAttempts()).isEqualTo(8);

        assertThatThrownBy(partner::quote).as("the third call: the limit of 2 refuses it")
                .isInstanceOf(RateLimitExceededException.class);
        assertThat(partner.quoteAttempts()).as("a refused call never reaches @Retry or the method").isEqualTo(8);
    }
}
