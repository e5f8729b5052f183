package dev.ratelimit.examples.todos.quarkus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.ratelimit.cdi.RateLimitRuntime;
import dev.ratelimit.core.RateLimitExceededException;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Pins what the tck-tests suite cannot see on Quarkus: ArC is CDI Lite, and its documentation says that
 * repeatable interceptor bindings declared on classes are not supported. {@code @RateLimit} on the class
 * of a plain CDI bean (once, or repeated) must still limit every method of the bean, and configuration
 * must come from Quarkus' own sources.
 */
@QuarkusTest
class ClassLevelLimitsOnQuarkusTest {

    @Inject
    SingleClassLimitBean single;

    @Inject
    RepeatedClassLimitBean repeated;

    @Inject
    RateLimitRuntime runtime;

    @TestHTTPResource("/")
    URI base;

    @Test
    void oneClassLevelLimitOnAPlainBeanIsEnforced() {
        assertThat(single.call()).isEqualTo("single");
        assertThat(single.call()).isEqualTo("single");
        RateLimitExceededException refused = catchThrowableOfType(RateLimitExceededException.class, single::call);
        assertThat(refused).as("third call of a 2-permit class limit").isNotNull();
        assertThat(refused.getViolatedPolicies()).containsExactly("class-single");
    }

    @Test
    void repeatedClassLevelLimitsOnAPlainBeanAreEnforcedTogether() {
        RateLimitExceededException refused = catchThrowableOfType(RateLimitExceededException.class,
                repeated::callWithOwnLimit);
        assertThat(refused).as("the method's own limit would allow the first call; the refusal comes later").isNull();
        refused = catchThrowableOfType(RateLimitExceededException.class, repeated::callWithOwnLimit);
        assertThat(refused).as("second call of a 1-permit method limit").isNotNull();
        assertThat(refused.getViolatedPolicies()).containsExactly("method-own");
        assertThat(refused.getDecision().outcomes()).extracting(o -> o.policy().name())
                .as("class limits first, in declaration order, then the method's")
                .containsExactly("class-first", "class-second", "method-own");
    }

    @Test
    void overHttpTheClassLevelRefusalIsA429DescribingIt() throws Exception {
        String key = "quarkus-" + UUID.randomUUID();
        assertThat(get("quarkus-test/repeated", key).statusCode()).isEqualTo(200);
        HttpResponse<String> second = get("quarkus-test/repeated", key);
        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(second.headers().firstValue("RateLimit").orElse(""))
                .contains("\"class-first\";r=0", "\"class-second\";r=1");
        HttpResponse<String> third = get("quarkus-test/repeated", key);
        assertThat(third.statusCode()).isEqualTo(429);
        assertThat(third.body()).contains("\"violated-policies\":[\"class-first\"]");
        assertThat(third.headers().firstValue("Retry-After")).isPresent();
    }

    @Test
    void settingsComeFromApplicationPropertiesAndFromTheAppsMicroprofileConfig() {
        assertThat(runtime.settings().maxTrackedPartitions()).as("%test. key of application.properties").isEqualTo(4321);
        assertThat(runtime.settings().partitionHeader()).as("META-INF/microprofile-config.properties of todos-app")
                .isEqualTo("X-Api-Key");
    }

    private HttpResponse<String> get(String path, String key) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(base.resolve(path)).header("X-Api-Key", key).GET().build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    }
}
