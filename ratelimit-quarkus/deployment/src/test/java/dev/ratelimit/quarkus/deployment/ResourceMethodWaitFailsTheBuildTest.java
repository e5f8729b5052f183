package dev.ratelimit.quarkus.deployment;

import dev.ratelimit.RateLimit;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A resource method whose limit may wait fails the build, naming the method and the wait: a server refuses at once;
 * waiting is for calls to other services. The same limit on a bean method is fine.
 */
class ResourceMethodWaitFailsTheBuildTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(WaitingResource.class, Partner.class))
            .assertException(BuildFailures.saying("Invalid rate limits (ratelimit-quarkus)",
                    "@RateLimit on WaitingResource.get(): the limit \"waits\" may wait 500 ms (maxWaitMillis), but a "
                            + "resource method refuses at once"));

    @Test
    void theBuildFails() {
        // assertException above: the application never starts
    }

    @Path("/waits")
    public static class WaitingResource {
        @GET
        @RateLimit(name = "waits", permitLimit = 3, windowSeconds = 60, maxWaitMillis = 500)
        public String get() {
            return "waited";
        }
    }

    @ApplicationScoped
    public static class Partner {
        @RateLimit(name = "partner", permitLimit = 2, windowSeconds = 1, maxWaitMillis = 5000)
        public String send() {
            return "sent";
        }
    }
}
