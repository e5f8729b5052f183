package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitKey;
import dev.ratelimit.core.RateLimitPer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Limits per argument, per address and of failures only that cannot work fail the deployment, each naming the method
 * (or both methods) and what is wrong: a limit per argument without a {@code @RateLimitKey}, two keys, a key no limit
 * per argument uses, a key of a type whose text is not a key, a resource class the interceptor cannot reach, failures
 * only with a wait, limits sharing a name that disagree on what they count; the same from configuration.
 */
class CountingValidationTest {

    @Path("/no-key")
    @ApplicationScoped
    public static class ArgumentWithoutKey {
        @POST
        @RateLimit(name = "account", per = RateLimitPer.ARGUMENT)
        public String login(@FormParam("username") String username) {
            return "never";
        }
    }

    @Path("/two-keys")
    @ApplicationScoped
    public static class TwoKeys {
        @POST
        @RateLimit(name = "account", per = RateLimitPer.ARGUMENT)
        public String login(@FormParam("a") @RateLimitKey String a, @FormParam("b") @RateLimitKey String b) {
            return "never";
        }
    }

    @Path("/unused-key")
    @ApplicationScoped
    public static class KeyWithoutArgumentLimit {
        @POST
        @RateLimit(name = "address", per = RateLimitPer.ADDRESS)
        public String login(@FormParam("username") @RateLimitKey String username) {
            return "never";
        }
    }

    /** Not a CDI bean: no bean-defining annotation (the test archive is discovered as annotated). */
    @Path("/not-a-bean")
    public static class NotABean {
        @POST
        @RateLimit(name = "account", per = RateLimitPer.ARGUMENT)
        public String login(@FormParam("username") @RateLimitKey String username) {
            return "never";
        }
    }

    public record Credentials(String username, String password) {
    }

    @ApplicationScoped
    public static class KeyOfAnotherType {
        @RateLimit(name = "account", per = RateLimitPer.ARGUMENT)
        public String login(@RateLimitKey Credentials credentials) {
            return "never";
        }
    }

    @ApplicationScoped
    public static class FailuresOnlyThatWaits {
        @RateLimit(name = "codes", failuresOnly = true, maxWaitMillis = 500)
        public String verify(String code) {
            return "never";
        }
    }

    @ApplicationScoped
    public static class CountsEveryCall {
        @RateLimit(name = "shared")
        public String one() {
            return "never";
        }
    }

    @ApplicationScoped
    public static class CountsFailuresOnly {
        @RateLimit(name = "shared", failuresOnly = true)
        public String two() {
            return "never";
        }
    }

    @ApplicationScoped
    public static class KeyWithoutAnyLimit {
        public String send(@RateLimitKey String phone) {
            return "never";
        }
    }

    @ApplicationScoped
    public static class PerCaller {
        @RateLimit(name = "codes")
        public String verify(String code) {
            return "never";
        }
    }

    @Test
    void aLimitPerArgumentWithoutAKeyFailsStartUpNamingTheMethod() {
        assertThat(startFailure(Embedded.builder().resources(ArgumentWithoutKey.class)))
                .anySatisfy(m -> assertThat(m).contains("ArgumentWithoutKey.login(String)").contains("\"account\"")
                        .contains("counts per ARGUMENT").contains("@RateLimitKey"));
    }

    @Test
    void twoKeysFailStartUpNamingTheMethodAndBothParameters() {
        assertThat(startFailure(Embedded.builder().resources(TwoKeys.class)))
                .anySatisfy(m -> assertThat(m).contains("TwoKeys.login(String, String)").contains("2 parameters")
                        .contains("0 (String), 1 (String)"));
    }

    @Test
    void aKeyThatNoLimitPerArgumentUsesFailsStartUp() {
        assertThat(startFailure(Embedded.builder().resources(KeyWithoutArgumentLimit.class)))
                .anySatisfy(m -> assertThat(m).contains("KeyWithoutArgumentLimit.login(String)")
                        .contains("no per = ARGUMENT limit covers the method"));
    }

    @Test
    void aKeyOnAMethodWithoutAnyLimitFailsTheContainerStart() {
        assertThat(cdiStartFailure(KeyWithoutAnyLimit.class))
                .anySatisfy(m -> assertThat(m).contains("KeyWithoutAnyLimit.send(String)")
                        .contains("no per = ARGUMENT limit covers the method"));
    }

    @Test
    void aResourceClassThatIsNotACdiBeanFailsStartUpWhereALimitPerArgumentCoversIt() {
        assertThat(startFailure(Embedded.builder().resources(NotABean.class)))
                .anySatisfy(m -> assertThat(m).contains("NotABean.login(String)").contains("not a CDI bean"));
    }

    @Test
    void aKeyOfAnotherTypeFailsTheContainerStartNamingTheType() {
        assertThat(cdiStartFailure(KeyOfAnotherType.class))
                .anySatisfy(m -> assertThat(m).contains("KeyOfAnotherType.login(Credentials)")
                        .contains("is a Credentials").contains("String or CharSequence, a primitive or its box, an enum or a UUID"));
    }

    @Test
    void failuresOnlyWithAWaitFailsTheContainerStart() {
        assertThat(cdiStartFailure(FailuresOnlyThatWaits.class))
                .anySatisfy(m -> assertThat(m).contains("FailuresOnlyThatWaits.verify(String)").contains("\"codes\"")
                        .contains("counts only failures").contains("500 ms"));
    }

    @Test
    void limitsSharingANameThatDisagreeOnFailuresOnlyFailNamingBothMethods() {
        assertThat(cdiStartFailure(CountsEveryCall.class, CountsFailuresOnly.class))
                .anySatisfy(m -> assertThat(m).contains("\"shared\"").contains("CountsEveryCall.one()")
                        .contains("CountsFailuresOnly.two()").contains("failuresOnly"));
    }

    @Test
    void failuresOnlyWithAWaitFromConfigurationFailsTheContainerStartNamingTheKeys() {
        Throwable failure = catchThrowable(() -> Embedded.builder().beans(PerCaller.class)
                .config("ratelimit.limits.codes.failures-only", "true")
                .config("ratelimit.limits.codes.max-wait-millis", "100").startCdi().close());
        assertThat(Failures.messages(failure)).anySatisfy(m -> assertThat(m).contains("PerCaller.verify(String)")
                .contains("ratelimit.limits.codes.max-wait-millis").contains("counts only failures"));
    }

    @Test
    void aLimitMadePerArgumentByConfigurationOnAMethodWithoutAKeyFailsTheContainerStart() {
        Throwable failure = catchThrowable(() -> Embedded.builder().beans(PerCaller.class)
                .config("ratelimit.limits.codes.per", "argument").startCdi().close());
        assertThat(Failures.messages(failure)).anySatisfy(m -> assertThat(m).contains("PerCaller.verify(String)")
                .contains("ratelimit.limits.codes.per").contains("@RateLimitKey"));
    }

    @Test
    void malformedFailureStatusesFailStartUpNamingTheKeyAndTheValue() {
        Throwable failure = catchThrowable(() -> Embedded.builder().beans(PerCaller.class)
                .config("ratelimit.limits.codes.failure-statuses", "401,6xx").startCdi().close());
        assertThat(Failures.messages(failure)).anySatisfy(m -> assertThat(m)
                .contains("ratelimit.limits.codes.failure-statuses").contains("\"6xx\" is not one").contains("401,6xx"));
    }

    private static List<String> startFailure(Embedded.Builder app) {
        Throwable failure = catchThrowable(() -> app.start().close());
        assertThat(failure).as("start-up failure").isNotNull();
        return Failures.messages(failure);
    }

    private static List<String> cdiStartFailure(Class<?>... beans) {
        Throwable failure = catchThrowable(() -> Embedded.builder().beans(beans).startCdi().close());
        assertThat(failure).as("Weld start").isNotNull();
        return Failures.messages(failure);
    }
}
