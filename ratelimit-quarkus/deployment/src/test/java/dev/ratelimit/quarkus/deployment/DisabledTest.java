package dev.ratelimit.quarkus.deployment;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.nullValue;

import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code ratelimit.enabled=false}: nothing decided, counted or written, resource and bean methods alike. */
class DisabledTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(ItemResource.class, LimitedService.class))
            .overrideRuntimeConfigKey("ratelimit.enabled", "false");

    @Test
    void nothingIsDecidedCountedOrWritten() {
        for (int i = 0; i < 5; i++) {
            given().get("/items/1").then().statusCode(200).header("RateLimit", nullValue());
            given().get("/items/bean").then().statusCode(200).header("RateLimit", nullValue());
        }
    }
}
