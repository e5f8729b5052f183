package dev.ratelimit.quarkus.deployment;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.nullValue;

import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The request path on Quarkus REST with the extension, in a real application: headers written into the Vert.x
 * response, the refusal answered after every other filter, each limit spent exactly once with no CDI interceptor
 * around the resource methods the filters decide, bean limits joining the request.
 */
class RequestPathTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(ItemResource.class, LimitedService.class, ClassLimitedResource.class,
                    CountingInterceptors.class, CountingInterceptors.Single.class, CountingInterceptors.Repeated.class,
                    TestSecurityFilters.class, TestSecurityFilters.Authentication.class,
                    TestSecurityFilters.Authorization.class))
            .overrideConfigKey("ratelimit.partition-header", "X-Api-Key")
            // a key of another module, or of a later version: not this extension's to refuse
            .overrideConfigKey("ratelimit.some-later-key", "value");

    @Inject
    ClassLimitedResource classLimited;

    @Test
    void aResourceMethodsLimitIsSpentOncePerRequestAndItsHeadersAreWritten() {
        String key = UUID.randomUUID().toString();
        given().header("X-Api-Key", key).get("/items/1").then().statusCode(200)
                .header("RateLimit-Limit", "3")
                .header("RateLimit-Remaining", "2")
                .header("RateLimit-Reset", "60")
                .header("RateLimit-Policy", "\"items\";q=3;w=60")
                .header("RateLimit", "\"items\";r=2;t=60")
                .header("Retry-After", nullValue());
        // seconds until the first permit returns: 60, or less on a slow machine
        for (int remaining = 1; remaining >= 0; remaining--) {
            given().header("X-Api-Key", key).get("/items/1").then().statusCode(200)
                    .header("RateLimit-Remaining", String.valueOf(remaining))
                    .header("RateLimit-Policy", "\"items\";q=3;w=60")
                    .header("RateLimit", matchesPattern("\"items\";r=" + remaining + ";t=(60|5\\d)"));
        }
        given().header("X-Api-Key", key).get("/items/1").then().statusCode(429)
                .contentType("application/problem+json")
                .body(containsString("\"violated-policies\":[\"items\"]"))
                .header("RateLimit-Remaining", "0")
                .header("Retry-After", matchesPattern("60|5\\d"))
                .header("RateLimit-Policy", "\"items\";q=3;w=60")
                .header("RateLimit", matchesPattern("\"items\";r=0;t=(60|5\\d)"));
    }

    @Test
    void noInterceptorRunsAroundTheResourceMethodsTheFiltersDecide() {
        CountingInterceptors.INTERCEPTED.clear();
        String key = UUID.randomUUID().toString();
        given().header("X-Api-Key", key).get("/items/2").then().statusCode(200);
        given().header("X-Api-Key", key).get("/class-limited").then().statusCode(200)
                .header("RateLimit", "\"class-a\";r=4;t=60, \"class-b\";r=1;t=60");
        given().header("X-Api-Key", key).get("/items/bean").then().statusCode(200);
        assertThat(classLimited.helper()).isEqualTo("helper");
        // the bean method and the resource class's other business method keep their limits' binding; the resource
        // methods have none
        assertThat(CountingInterceptors.INTERCEPTED).containsExactlyInAnyOrder("LimitedService.work",
                "ClassLimitedResource.helper");
    }

    @Test
    void headSpendsFromItsGetMethodAndARequestMatchingNoMethodSpendsNothing() {
        String key = UUID.randomUUID().toString();
        given().header("X-Api-Key", key).head("/items/3").then().statusCode(200).header("RateLimit", "\"items\";r=2;t=60");
        given().header("X-Api-Key", key).get("/nowhere").then().statusCode(404).header("RateLimit", nullValue());
        given().header("X-Api-Key", key).put("/items/3").then().statusCode(405).header("RateLimit", nullValue());
        given().header("X-Api-Key", key).get("/items/3").then().statusCode(200)
                .header("RateLimit", matchesPattern("\"items\";r=1;t=(60|5\\d)"));
    }

    @Test
    void aLaterFiltersRefusalWinsWithoutHeadersAndSpendsNothing() {
        String key = UUID.randomUUID().toString();
        for (int i = 0; i < 3; i++) {
            given().header("X-Api-Key", key).get("/items/4").then().statusCode(200);
        }
        // over the limit, but authorization refuses too, after the TRANSPORT limits: its answer wins
        given().header("X-Api-Key", key).header("X-Deny", "yes").get("/items/4").then().statusCode(401)
                .body(equalTo("who are you?")).header("RateLimit", nullValue()).header("Retry-After", nullValue());
        // under the limit, the limit allowed it before authorization refused: spent (whatever the response) and said so
        String other = UUID.randomUUID().toString();
        given().header("X-Api-Key", other).header("X-Deny", "yes").get("/items/4").then().statusCode(401)
                .header("RateLimit", "\"items\";r=2;t=60");
        given().header("X-Api-Key", other).get("/items/4").then().statusCode(200)
                .header("RateLimit", matchesPattern("\"items\";r=1;t=(60|5\\d)"));
    }

    @Test
    void aPrincipalLimitDecidesAfterAuthorizationAndPartitionsByTheCaller() {
        given().delete("/items/5").then().statusCode(401).header("RateLimit", nullValue());
        String user = "user-" + UUID.randomUUID();
        given().header("X-User", user).delete("/items/5").then().statusCode(204).header("RateLimit", "\"delete\";r=0;t=60");
        given().header("X-User", user).delete("/items/5").then().statusCode(429)
                .body(containsString("\"violated-policies\":[\"delete\"]"));
    }

    @Test
    void aMethodWithoutLimitsGetsNoHeaders() {
        given().get("/items/open").then().statusCode(200).body(equalTo("open")).header("RateLimit", nullValue());
    }

    @Test
    void aBeanLimitCalledFromAnUnlimitedResourceMethodJoinsTheRequest() {
        String key = UUID.randomUUID().toString();
        given().header("X-Api-Key", key).get("/items/bean").then().statusCode(200).header("RateLimit", "\"work\";r=1;t=60");
        given().header("X-Api-Key", key).get("/items/bean").then().statusCode(200)
                .header("RateLimit", matchesPattern("\"work\";r=0;t=(60|5\\d)"));
        given().header("X-Api-Key", key).get("/items/bean").then().statusCode(429)
                .body(containsString("\"violated-policies\":[\"work\"]"))
                .header("RateLimit", matchesPattern("\"work\";r=0;t=(60|5\\d)"));
    }
}
