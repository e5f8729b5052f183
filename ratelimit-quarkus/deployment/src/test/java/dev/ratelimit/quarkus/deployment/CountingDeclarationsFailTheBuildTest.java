package dev.ratelimit.quarkus.deployment;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitKey;
import dev.ratelimit.core.RateLimitPer;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Limits per argument and of failures only that cannot work fail the build, each naming the method: a limit per
 * argument on a resource method without a {@code @RateLimitKey}, two keys, a key of a type whose text is not a key, a
 * key no limit per argument uses (on a method without any limit too), a limit of failures only that may wait.
 */
class CountingDeclarationsFailTheBuildTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Login.class, Sms.class, Unlimited.class))
            .assertException(BuildFailures.saying("Invalid rate limits (ratelimit-quarkus)",
                    "@RateLimit on Login.noKey(String): the limit \"nokey\" counts per ARGUMENT (per), but no parameter "
                            + "of the method carries @RateLimitKey",
                    "@RateLimitKey on Login.twoKeys(String, long): 2 parameters carry it (0 (String), 1 (long))",
                    "@RateLimitKey on Sms.send(Object): the parameter 0 is a Object, but a key must be a String",
                    "@RateLimit on Sms.verify(String): the limit \"codes\" counts only failures (failuresOnly) and may "
                            + "wait 200 ms",
                    "@RateLimitKey on Unlimited.call(String): the parameter 0 (String) is a key, but no per = ARGUMENT "
                            + "limit covers the method"));

    @Test
    void theBuildFails() {
        // assertException above: the application never starts
    }

    @Path("/login")
    public static class Login {
        @POST
        @RateLimit(name = "account", per = RateLimitPer.ARGUMENT, failuresOnly = true)
        public String login(@FormParam("u") @RateLimitKey String user) {
            return "fine";
        }

        @POST
        @Path("nokey")
        @RateLimit(name = "nokey", per = RateLimitPer.ARGUMENT)
        public String noKey(@FormParam("u") String user) {
            return "never";
        }

        @POST
        @Path("twokeys")
        @RateLimit(name = "twokeys", per = RateLimitPer.ARGUMENT)
        public String twoKeys(@FormParam("a") @RateLimitKey String a, @FormParam("b") @RateLimitKey long b) {
            return "never";
        }
    }

    @ApplicationScoped
    public static class Sms {
        @RateLimit(name = "sms", per = RateLimitPer.ARGUMENT)
        public String send(@RateLimitKey Object phone) {
            return "never";
        }

        @RateLimit(name = "codes", failuresOnly = true, maxWaitMillis = 200)
        public String verify(String code) {
            return "never";
        }
    }

    @ApplicationScoped
    public static class Unlimited {
        public String call(@RateLimitKey String key) {
            return "never";
        }
    }
}
