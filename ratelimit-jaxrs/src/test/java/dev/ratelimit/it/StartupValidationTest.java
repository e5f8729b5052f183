package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ratelimit.RateLimit;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Application;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An invalid declaration or setting fails the deployment with a message naming the element and the
 * value (docs/declaring-limits.md, "Mistakes that fail the deployment"); it is never silently accepted. A resource
 * method's limits fail Jersey's start (the DynamicFeature resolves them); a CDI bean's limits and the configuration
 * fail the Weld start.
 */
class StartupValidationTest {

    @Path("/zero")
    public static class ZeroPermits {
        @GET
        @RateLimit(permitLimit = 0)
        public String get() {
            return "never";
        }
    }

    @Path("/window")
    public static class ZeroWindow {
        @GET
        @RateLimit(windowSeconds = 0)
        public String get() {
            return "never";
        }
    }

    @Path("/blank")
    public static class BlankName {
        @GET
        @RateLimit(name = " ")
        public String get() {
            return "never";
        }
    }

    @Path("/dup")
    @RateLimit(name = "a", permitLimit = 5)
    public static class ClassAndMethodShareAName {
        @GET
        @RateLimit(name = "a", permitLimit = 3)
        public String get() {
            return "never";
        }
    }

    @Path("/dup-method")
    public static class MethodRepeatsAName {
        @GET
        @RateLimit(name = "a", permitLimit = 5)
        @RateLimit(name = "a", permitLimit = 3)
        public String get() {
            return "never";
        }
    }

    @Path("/named-x")
    public static class MethodNamedX {
        @GET
        @RateLimit(name = "x", permitLimit = 3)
        public String get() {
            return "never";
        }
    }

    @Path("/unlimited")
    public static class Unlimited {
        @GET
        public String get() {
            return "ok";
        }
    }

    @RateLimit(name = "x", permitLimit = 50)
    public static class ModuleNamedX extends Application {
    }

    @RateLimit(name = "m", permitLimit = 50)
    @RateLimit(name = "m", permitLimit = 60)
    public static class ModuleRepeatsAName extends Application {
    }

    @ApplicationScoped
    public static class InvalidBean {
        @RateLimit(permitLimit = 0)
        public String work() {
            return "never";
        }
    }

    @ApplicationScoped
    @RateLimit(name = "a")
    public static class BeanClassAndMethodShareAName {
        @RateLimit(name = "a", permitLimit = 3)
        public String work() {
            return "never";
        }
    }

    @Test
    void zeroPermitLimitOnResourceMethodFailsStartUpNamingMethodAndValue() {
        Throwable failure = startFailure(Embedded.builder().resources(ZeroPermits.class));

        assertThat(Failures.messages(failure))
                .anySatisfy(m -> assertThat(m).contains("ZeroPermits.get()").contains("permitLimit must be >= 1, was 0"));
    }

    @Test
    void zeroWindowOnResourceMethodFailsStartUpNamingMethodAndValue() {
        Throwable failure = startFailure(Embedded.builder().resources(ZeroWindow.class));

        assertThat(Failures.messages(failure))
                .anySatisfy(m -> assertThat(m).contains("ZeroWindow.get()").contains("windowSeconds").contains("was 0"));
    }

    @Test
    void blankNameOnResourceMethodFailsStartUpNamingMethodAndValue() {
        Throwable failure = startFailure(Embedded.builder().resources(BlankName.class));

        assertThat(Failures.messages(failure))
                .anySatisfy(m -> assertThat(m).contains("BlankName.get()").contains("name").contains("was \" \""));
    }

    @Test
    void classAndMethodLimitWithOneNameFailStartUp() {
        Throwable failure = startFailure(Embedded.builder().resources(ClassAndMethodShareAName.class));

        assertThat(Failures.messages(failure))
                .anySatisfy(m -> assertThat(m).contains("ClassAndMethodShareAName.get()").contains("name \"a\""));
    }

    @Test
    void twoMethodLimitsWithOneNameFailStartUp() {
        Throwable failure = startFailure(Embedded.builder().resources(MethodRepeatsAName.class));

        assertThat(Failures.messages(failure))
                .anySatisfy(m -> assertThat(m).contains("MethodRepeatsAName.get()").contains("name \"a\""));
    }

    @Test
    void globalLimitNamedLikeAMethodLimitFailsStartUp() {
        Throwable failure = startFailure(Embedded.builder()
                .config("ratelimit.global.permit-limit", "100")
                .config("ratelimit.global.name", "x")
                .resources(MethodNamedX.class));

        assertThat(Failures.messages(failure))
                .anySatisfy(m -> assertThat(m).contains("MethodNamedX.get()").contains("name \"x\""));
    }

    @Test
    void globalLimitNamedLikeTheModuleLimitFailsStartUp() {
        Throwable failure = startFailure(Embedded.builder()
                .config("ratelimit.global.permit-limit", "100")
                .config("ratelimit.global.name", "x")
                .application(ModuleNamedX.class)
                .resources(Unlimited.class));

        assertThat(Failures.messages(failure))
                .anySatisfy(m -> assertThat(m).contains("Unlimited.get()").contains("name \"x\""));
    }

    @Test
    void twoModuleLimitsWithOneNameFailStartUp() {
        Throwable failure = startFailure(Embedded.builder()
                .application(ModuleRepeatsAName.class)
                .resources(Unlimited.class));

        assertThat(Failures.messages(failure)).anySatisfy(m -> assertThat(m).contains("name \"m\""));
    }

    @Test
    void invalidLimitOnPlainCdiBeanFailsTheContainerStart() {
        Throwable failure = catchThrowable(() -> Embedded.builder().beans(InvalidBean.class).startCdi().close());

        assertThat(failure).as("Weld start").isNotNull();
        assertThat(Failures.messages(failure))
                .anySatisfy(m -> assertThat(m).contains("InvalidBean.work()").contains("permitLimit must be >= 1, was 0"));
    }

    @Test
    void beanClassAndMethodLimitWithOneNameFailTheContainerStart() {
        Throwable failure = catchThrowable(
                () -> Embedded.builder().beans(BeanClassAndMethodShareAName.class).startCdi().close());

        assertThat(failure).as("Weld start").isNotNull();
        assertThat(Failures.messages(failure))
                .anySatisfy(m -> assertThat(m).contains("BeanClassAndMethodShareAName.work()").contains("name \"a\""));
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({
            "ratelimit.max-tracked-partitions, abc",
            "ratelimit.global.permit-limit, -1",
            "ratelimit.global.scope, NOPE",
            "ratelimit.global.window-seconds, 0",
            "ratelimit.global.algorithm, FIXED_WINDOW",
            "ratelimit.enabled, maybe",
            "ratelimit.mode, loud",
            "ratelimit.limits.burst.permit-limit, lots",
            "ratelimit.limits.burst.window-seconds, 31536001",
            "ratelimit.limits.burst.algorithm, LEAKY_BUCKET",
            "ratelimit.limits.burst.mode, sometimes",
            "ratelimit.plans, go ld",
            "ratelimit.plans.gold.limits.burst.permit-limit, 0",
            "ratelimit.store.timeout-millis, 0",
            "ratelimit.store.on-failure, retry",
            "ratelimit.test.manual-clock, yes",
            "ratelimit.limits.burst.max-wait-millis, -1",
            "ratelimit.limits.burst.max-wait-millis, soon",
            "ratelimit.limits.burst.per, team",
    })
    void malformedSettingFailsStartUpNamingKeyAndValue(String key, String value) {
        Embedded.Builder app = Embedded.builder().config(key, value).resources(Unlimited.class);
        if (key.startsWith("ratelimit.plans.gold.")) {
            app.config("ratelimit.plans", "gold");
        }
        Throwable failure = startFailure(app);

        assertThat(Failures.messages(failure))
                .anySatisfy(m -> assertThat(m).contains(key).contains("\"" + value + "\""));
    }

    @Path("/costly")
    public static class CostAboveTheLimit {
        @GET
        @RateLimit(name = "costly", permitLimit = 3, cost = 4)
        public String get() {
            return "never";
        }
    }

    @Path("/costly-after-override")
    public static class Costly {
        @GET
        @RateLimit(name = "costly", permitLimit = 10, cost = 4)
        public String get() {
            return "never";
        }
    }

    @Path("/sliding")
    public static class SlidingShared {
        @GET
        @RateLimit(name = "shared")
        public String get() {
            return "never";
        }
    }

    @Path("/bucket")
    public static class BucketShared {
        @GET
        @RateLimit(name = "shared", algorithm = dev.ratelimit.core.RateLimitAlgorithm.TOKEN_BUCKET)
        public String get() {
            return "never";
        }
    }

    @Test
    void costAboveThePermitLimitFailsStartUpNamingMethodAndValue() {
        Throwable failure = startFailure(Embedded.builder().resources(CostAboveTheLimit.class));

        assertThat(Failures.messages(failure)).anySatisfy(m -> assertThat(m)
                .contains("CostAboveTheLimit.get()").contains("cost must be between 1 and permitLimit (3), was 4"));
    }

    @Test
    void costAboveThePermitLimitAfterAPlanOverrideFailsStartUpNamingMethodPlanAndValue() {
        Throwable failure = startFailure(Embedded.builder().resources(Costly.class)
                .config("ratelimit.plans", "free").config("ratelimit.plans.free.limits.costly.permit-limit", "2"));

        assertThat(Failures.messages(failure)).anySatisfy(m -> assertThat(m)
                .contains("Costly.get()").contains("\"free\"").contains("(2").contains("was 4"));
    }

    @Test
    void limitsSharingANameWithDifferentAlgorithmsFailStartUpNamingBoth() {
        Throwable failure = startFailure(Embedded.builder().resources(SlidingShared.class, BucketShared.class));

        assertThat(Failures.messages(failure)).anySatisfy(m -> assertThat(m).contains("\"shared\"")
                .contains("SlidingShared.get()").contains("BucketShared.get()").contains("must share an algorithm"));
    }

    @Path("/waits")
    public static class ResourceMethodThatWaits {
        @GET
        @RateLimit(name = "waits", permitLimit = 2, windowSeconds = 1, maxWaitMillis = 500)
        public String get() {
            return "never";
        }
    }

    @Path("/per-caller")
    public static class PerCaller {
        @GET
        @RateLimit(name = "backend")
        public String get() {
            return "never";
        }
    }

    @Path("/per-application")
    public static class PerApplication {
        @GET
        @RateLimit(name = "backend", per = dev.ratelimit.core.RateLimitPer.APPLICATION)
        public String get() {
            return "never";
        }
    }

    @ApplicationScoped
    public static class NegativeWait {
        @RateLimit(name = "negative", maxWaitMillis = -1)
        public String call() {
            return "never";
        }
    }

    @Test
    void aResourceMethodThatWouldWaitFailsStartUpNamingTheMethod() {
        Throwable failure = startFailure(Embedded.builder().resources(ResourceMethodThatWaits.class));

        assertThat(Failures.messages(failure)).anySatisfy(m -> assertThat(m).contains("ResourceMethodThatWaits.get()")
                .contains("\"waits\"").contains("500 ms").contains("maxWaitMillis").contains("refuses at once"));
    }

    @Test
    void aWaitConfiguredForAResourceMethodsLimitFailsStartUpNamingTheMethodAndTheKey() {
        Throwable failure = startFailure(Embedded.builder().resources(PerCaller.class)
                .config("ratelimit.limits.backend.max-wait-millis", "250"));

        assertThat(Failures.messages(failure)).anySatisfy(m -> assertThat(m).contains("PerCaller.get()")
                .contains("ratelimit.limits.backend.max-wait-millis").contains("250 ms"));
    }

    @Test
    void limitsSharingANameThatDisagreeOnWhoseCountItIsFailStartUpNamingBoth() {
        Throwable failure = startFailure(Embedded.builder().resources(PerCaller.class, PerApplication.class));

        assertThat(Failures.messages(failure)).anySatisfy(m -> assertThat(m).contains("\"backend\"")
                .contains("PerCaller.get()").contains("PerApplication.get()").contains("per"));
    }

    @Test
    void aNegativeWaitOnABeanMethodFailsTheContainerStart() {
        Throwable failure = catchThrowable(() -> Embedded.builder().beans(NegativeWait.class).startCdi().close());

        assertThat(Failures.messages(failure)).anySatisfy(m -> assertThat(m).contains("NegativeWait.call()")
                .contains("maxWaitMillis must be >= 0, was -1"));
    }

    private static Throwable startFailure(Embedded.Builder app) {
        Throwable failure = catchThrowable(() -> app.start().close());
        assertThat(failure).as("start-up failure").isNotNull();
        return failure;
    }
}
