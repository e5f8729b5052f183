package dev.ratelimit.core.declaration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.FailureStatuses;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.config.RateLimitSettings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The resolver's rules for limits per argument, per address and of failures only, each problem naming the method and
 * what is wrong; and the checks across methods that limits sharing a name agree on what they count.
 */
class CountingRulesTest {

    private static final KeyParameter USERNAME = new KeyParameter(0, "java.lang.String", false, false);

    private static LimitDeclaration.Builder onMethod(String name) {
        return LimitDeclaration.builder(DeclaredOn.METHOD, "Login.login(String)").name(name);
    }

    private static List<String> problems(MethodDeclarations method) {
        return LimitResolver.resolve(null, method).problems().stream().map(ResolvedLimits.Problem::message).toList();
    }

    private static MethodDeclarations resource(List<KeyParameter> keys, boolean interceptable, LimitDeclaration... own) {
        return MethodDeclarations.resourceMethod("Login.login(String)", List.of(), List.of(), List.of(own))
                .withKeys(keys, interceptable);
    }

    @Test
    void aMethodWithOneKeyAndALimitPerArgumentResolvesWithItsKey() {
        ResolvedLimits limits = LimitResolver.resolve(null, resource(List.of(USERNAME), true,
                onMethod("login-account").per(RateLimitPer.ARGUMENT).failuresOnly(true).build()));
        assertThat(limits.problems()).isEmpty();
        assertThat(limits.key()).isEqualTo(USERNAME);
    }

    @Test
    void aLimitPerArgumentWithoutAKey() {
        assertThat(problems(resource(List.of(), true, onMethod("login-account").per(RateLimitPer.ARGUMENT).build())))
                .containsExactly("@RateLimit on Login.login(String): the limit \"login-account\" counts per ARGUMENT (per), "
                        + "but no parameter of the method carries @RateLimitKey: mark the parameter it counts by");
    }

    @Test
    void twoKeys() {
        KeyParameter second = new KeyParameter(2, "java.util.UUID", false, true);
        assertThat(problems(resource(List.of(USERNAME, second), true,
                onMethod("login-account").per(RateLimitPer.ARGUMENT).build())))
                .containsExactly("@RateLimitKey on Login.login(String): 2 parameters carry it (0 (String), 2 (UUID)); "
                        + "a method counts by one");
    }

    @Test
    void aKeyThatNoLimitPerArgumentCovers() {
        assertThat(problems(resource(List.of(USERNAME), true, onMethod("login-address").per(RateLimitPer.ADDRESS).build())))
                .containsExactly("@RateLimitKey on Login.login(String): the parameter 0 (String) is a key, but no "
                        + "per = ARGUMENT limit covers the method, so nothing counts by it");
    }

    @Test
    void aKeyOfAnotherType() {
        KeyParameter credentials = new KeyParameter(0, "com.acme.Credentials", false, false);
        assertThat(problems(resource(List.of(credentials), true, onMethod("login-account").per(RateLimitPer.ARGUMENT).build())))
                .containsExactly("@RateLimitKey on Login.login(String): the parameter 0 is a Credentials, but a key must "
                        + "be a String or CharSequence, a primitive or its box, an enum or a UUID (another object's "
                        + "toString may differ per call, or hold a secret)");
        for (String allowed : List.of("java.lang.CharSequence", "long", "java.lang.Integer", "java.util.UUID")) {
            assertThat(new KeyParameter(0, allowed, false, false).typeAllowed()).as(allowed).isTrue();
        }
        assertThat(new KeyParameter(0, "com.acme.Kind", true, false).typeAllowed()).as("an enum").isTrue();
        assertThat(new KeyParameter(0, "java.lang.Object", false, false).typeAllowed()).isFalse();
    }

    @Test
    void aResourceClassThatIsNotACdiBean() {
        assertThat(problems(resource(List.of(USERNAME), false, onMethod("login-account").per(RateLimitPer.ARGUMENT).build())))
                .containsExactly("@RateLimit on Login.login(String): the limit \"login-account\" counts per ARGUMENT, "
                        + "which the CDI interceptor decides when the method is invoked, but the class of "
                        + "Login.login(String) is not a CDI bean, so no interceptor reaches it: give it a bean-defining "
                        + "annotation (@ApplicationScoped, @RequestScoped)");
    }

    @Test
    void aLimitPerArgumentOnTheModule() {
        LimitDeclaration module = LimitDeclaration.builder(DeclaredOn.MODULE, "App").name("account")
                .per(RateLimitPer.ARGUMENT).build();
        assertThat(problems(MethodDeclarations.resourceMethod("Login.login(String)", List.of(module), List.of(), List.of())
                .withKeys(List.of(USERNAME), true)))
                .contains("@RateLimit on App (covering Login.login(String)): the limit \"account\" counts per ARGUMENT, "
                        + "which the CDI interceptor decides when the method is invoked, but it is declared on the "
                        + "Application subclass (the module): declare it on the method or its class");
    }

    @Test
    void failuresOnlyThatWaits() {
        assertThat(problems(MethodDeclarations.beanMethod("Codes.verify(String)", List.of(),
                List.of(LimitDeclaration.builder(DeclaredOn.METHOD, "Codes.verify(String)").name("codes").failuresOnly(true)
                        .maxWaitMillis(500).build()))))
                .containsExactly("@RateLimit on Codes.verify(String): the limit \"codes\" counts only failures "
                        + "(failuresOnly) and may wait 500 ms (maxWaitMillis): a limit that counts only failures refuses "
                        + "at once; set the wait to 0");
    }

    @Test
    void failureStatusesThatDoNotRead() {
        assertThat(problems(resource(List.of(), true, onMethod("tokens").failuresOnly(true).failureStatuses("401,200").build())))
                .containsExactly("@RateLimit on Login.login(String): failureStatuses must be HTTP statuses from 400 to "
                        + "599, codes and ranges comma-separated (400-599, 401,403; \"200\" is not one), was \"401,200\"");
        assertThat(FailureStatuses.error("499-401")).contains("each range low-high (499-401 is not)");
        assertThat(FailureStatuses.parse(" 401 , 403,500-503").toString()).isEqualTo("401,403,500-503");
        assertThat(FailureStatuses.parse("401,403").failure(403)).isTrue();
        assertThat(FailureStatuses.parse("401,403").failure(404)).isFalse();
        assertThat(FailureStatuses.DEFAULT.failure(399)).isFalse();
        assertThat(FailureStatuses.DEFAULT.failure(599)).isTrue();
    }

    @Test
    void namesSharedByLimitsThatDisagreeOnFailuresOnlyOrTheirStatusesNameBothMethods() {
        SharedNames names = new SharedNames(RateLimitSettings.of(Map.of()));
        names.add(LimitResolver.resolve(null, MethodDeclarations.beanMethod("A.a()", List.of(),
                List.of(LimitDeclaration.builder(DeclaredOn.METHOD, "A.a()").name("codes").failuresOnly(true).build()))));
        assertThat(names.add(LimitResolver.resolve(null, MethodDeclarations.beanMethod("B.b()", List.of(),
                List.of(LimitDeclaration.builder(DeclaredOn.METHOD, "B.b()").name("codes").build())))))
                .containsExactly("ratelimit: the limit name \"codes\" counts only failures (400-599) on A.a() and every "
                        + "call on B.b(): limits that share a name share a count, so they must agree on what it counts "
                        + "(failuresOnly, failure-statuses)");
        assertThat(names.add(LimitResolver.resolve(null, MethodDeclarations.beanMethod("C.c()", List.of(),
                List.of(LimitDeclaration.builder(DeclaredOn.METHOD, "C.c()").name("codes").failuresOnly(true)
                        .failureStatuses("401").build())))))
                .singleElement().asString().contains("only failures (400-599) on A.a()").contains("only failures (401) on C.c()");
        assertThat(names.add(LimitResolver.resolve(null, MethodDeclarations.beanMethod("D.d()", List.of(),
                List.of(LimitDeclaration.builder(DeclaredOn.METHOD, "D.d()").name("codes").failuresOnly(true)
                        .per(RateLimitPer.ADDRESS).build())))))
                .singleElement().asString().contains("counts per caller on A.a() and per address on D.d()");
    }

    @Test
    void configurationDecidesWhatALimitCounts() {
        LimitDeclaration declared = onMethod("codes").build();
        Counting counting = Counting.of(RateLimitSettings.of(Map.of("ratelimit.limits.codes.failures-only", "true",
                "ratelimit.limits.codes.failure-statuses", "401,403", "ratelimit.limits.codes.per", "address")), declared);
        assertThat(counting).isEqualTo(new Counting(RateLimitPer.ADDRESS, true, FailureStatuses.parse("401,403")));
        assertThat(counting.describe()).isEqualTo("per address, failures only (401,403)");
        assertThatThrownBy(() -> Counting.of(RateLimitSettings.of(Map.of()), onMethod("x").failuresOnly(true)
                .failureStatuses("x").build())).isInstanceOf(IllegalArgumentException.class);
    }
}
