package dev.ratelimit.quarkus.deployment;

import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A malformed {@code ratelimit.trusted-proxies} (run-time configuration, which the build cannot know) fails the start,
 * naming the key and the value.
 */
class MalformedSettingFailsTheStartTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(ItemResource.class, LimitedService.class))
            .overrideRuntimeConfigKey("ratelimit.trusted-proxies", "10.0.0.0/8, 10.1.2.300")
            .assertException(StartFailures.saying("ratelimit.trusted-proxies", "10.1.2.300"));

    @Test
    void theStartFails() {
        // assertException above: the application never starts
    }
}
