package dev.ratelimit.quarkus.deployment;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusUnitTest;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An application without request filters of its own: the limits of a blocking resource method are decided on the event
 * loop, before the method is handed to a worker (a remote store's call then costs no hop to the event loop and back),
 * and count and answer as anywhere else. With a user's authentication filter they are not
 * ({@link DecidedAfterUserFiltersTest}); with Quarkus Security they are, after it ({@link PrincipalOnTheEventLoopTest}).
 */
class DecidedBeforeDispatchTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(ItemResource.class, LimitedService.class, ThreadRecordingStore.class))
            .overrideConfigKey("ratelimit.partition-header", "X-Api-Key");

    @Test
    void aBlockingMethodsLimitIsDecidedOnTheEventLoopAndStillCountsAndAnswers() {
        String key = UUID.randomUUID().toString();
        for (int remaining = 2; remaining >= 0; remaining--) {
            given().header("X-Api-Key", key).get("/items/1").then().statusCode(200)
                    .header("RateLimit-Remaining", String.valueOf(remaining));
        }
        given().header("X-Api-Key", key).get("/items/1").then().statusCode(429)
                .contentType("application/problem+json").header("RateLimit-Remaining", "0");
        assertThat(ThreadRecordingStore.askedOnEventLoop("X-Api-Key:" + key)).as("asked on an event-loop thread").isTrue();
    }
}
