package dev.ratelimit.quarkus.deployment;

import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code ratelimit.admin.enabled=true} without {@code ratelimit.admin.role} (run-time configuration) fails the start,
 * naming both keys: an admin API open to every caller is never served.
 */
class AdminWithoutRoleFailsTheStartTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(ItemResource.class, LimitedService.class))
            .overrideRuntimeConfigKey("ratelimit.admin.enabled", "true")
            .assertException(StartFailures.saying("ratelimit.admin.enabled=true needs ratelimit.admin.role",
                    "it is not set"));

    @Test
    void theStartFails() {
        // assertException above: the application never starts
    }
}
