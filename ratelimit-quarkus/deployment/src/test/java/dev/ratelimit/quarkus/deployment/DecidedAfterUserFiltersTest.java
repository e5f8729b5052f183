package dev.ratelimit.quarkus.deployment;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusUnitTest;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With a user's authentication filter (a plain, blocking one), the limits of a blocking method are decided on the
 * method's worker thread, after that filter, as its priority says: deciding them on the event loop would run them
 * before it. The TRANSPORT limit of an authenticated caller counts under its principal.
 */
class DecidedAfterUserFiltersTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(ItemResource.class, LimitedService.class, ThreadRecordingStore.class,
                    TestSecurityFilters.class, TestSecurityFilters.Authentication.class,
                    TestSecurityFilters.Authorization.class));

    @Test
    void aBlockingMethodsLimitIsDecidedOnItsWorkerAfterTheUsersAuthentication() {
        String user = "user-" + UUID.randomUUID();
        given().header("X-User", user).get("/items/1").then().statusCode(200).header("RateLimit-Remaining", "2");
        assertThat(ThreadRecordingStore.askedOnEventLoop("sub:" + user)).as("asked on a worker, after authentication")
                .isFalse();
    }
}
