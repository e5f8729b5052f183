package dev.ratelimit.core.declaration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.declaration.MethodDeclarations.Kind;
import dev.ratelimit.core.declaration.ResolvedLimits.Problem;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which limits cover a method, in which order, and what is wrong with them: the one resolver, on plain values. */
class LimitResolverTest {

    private static final LimitDeclaration GLOBAL = LimitDeclaration.global(new RateLimitPolicy("application", 1000, 60),
            RateLimitScope.TRANSPORT);
    private static final LimitDeclaration MODULE = on(DeclaredOn.MODULE, "TodosApplication").name("module").build();
    private static final LimitDeclaration MODULE_HOURLY = on(DeclaredOn.MODULE, "TodosApplication").name("module-hourly")
            .windowSeconds(3600).build();
    private static final LimitDeclaration CLASS = on(DeclaredOn.CLASS, "AdminResource").name("admin").build();
    private static final LimitDeclaration METHOD = on(DeclaredOn.METHOD, "AdminResource.purge()").name("purge").build();

    private static LimitDeclaration.Builder on(DeclaredOn level, String place) {
        return LimitDeclaration.builder(level, place);
    }

    private static ResolvedLimits resource(List<LimitDeclaration> module, List<LimitDeclaration> classLevel,
                                           List<LimitDeclaration> methodLevel) {
        return LimitResolver.resolve(GLOBAL, MethodDeclarations.resourceMethod("AdminResource.purge()", module,
                classLevel, methodLevel));
    }

    @Test
    void aResourceMethodIsCoveredByTheGlobalLimitThenItsClassThenItselfEachInDeclarationOrder() {
        LimitDeclaration second = on(DeclaredOn.METHOD, "AdminResource.purge()").name("purge-hourly").build();
        ResolvedLimits limits = resource(List.of(MODULE), List.of(CLASS), List.of(METHOD, second));

        assertThat(limits.limits()).containsExactly(GLOBAL, CLASS, METHOD, second);
        assertThat(limits.problems()).isEmpty();
        assertThat(limits.where()).isEqualTo("AdminResource.purge()");
        assertThat(limits.ofResourceMethod()).isTrue();
    }

    @Test
    void theModuleCoversAResourceMethodOnlyWhereNeitherItsClassNorItselfDeclaresALimit() {
        assertThat(resource(List.of(MODULE, MODULE_HOURLY), List.of(), List.of()).limits())
                .containsExactly(GLOBAL, MODULE, MODULE_HOURLY);
        assertThat(resource(List.of(MODULE), List.of(CLASS), List.of()).limits()).containsExactly(GLOBAL, CLASS);
        assertThat(resource(List.of(MODULE), List.of(), List.of(METHOD)).limits()).containsExactly(GLOBAL, METHOD);
    }

    @Test
    void withoutAGlobalLimitAndDeclarationsNothingCoversAResourceMethod() {
        ResolvedLimits limits = LimitResolver.resolve(null, MethodDeclarations.resourceMethod("R.m()", List.of(),
                List.of(), List.of()));
        assertThat(limits.isEmpty()).isTrue();
        assertThat(limits.problems()).isEmpty();
    }

    @Test
    void aBeanMethodIsCoveredByItsClassThenItselfAndNeverByTheGlobalLimit() {
        ResolvedLimits limits = LimitResolver.resolve(GLOBAL, MethodDeclarations.beanMethod("AdminResource.purge()",
                List.of(CLASS), List.of(METHOD)));
        assertThat(limits.limits()).containsExactly(CLASS, METHOD);
        assertThat(limits.ofResourceMethod()).isFalse();
    }

    @Test
    void limitsAreSplitByScopeKeepingTheirOrder() {
        LimitDeclaration principal = on(DeclaredOn.CLASS, "AdminResource").name("admin-hourly")
                .scope(RateLimitScope.PRINCIPAL).build();
        ResolvedLimits limits = resource(List.of(), List.of(CLASS, principal), List.of(METHOD));
        assertThat(limits.inScope(RateLimitScope.TRANSPORT)).containsExactly(GLOBAL, CLASS, METHOD);
        assertThat(limits.inScope(RateLimitScope.PRINCIPAL)).containsExactly(principal);
    }

    @Test
    void aValueOutOfRangeIsAProblemNamingTheMethodAndTheValue() {
        ResolvedLimits limits = resource(List.of(), List.of(),
                List.of(on(DeclaredOn.METHOD, "AdminResource.purge()").permitLimit(0).build()));
        assertThat(limits.problems()).extracting(Problem::message)
                .containsExactly("@RateLimit on AdminResource.purge(): permitLimit must be >= 1, was 0");
        assertThat(limits.problems().get(0).declaration()).isSameAs(limits.limits().get(1));
        assertThatThrownBy(limits::orThrow).isInstanceOf(InvalidRateLimitException.class)
                .hasMessage("@RateLimit on AdminResource.purge(): permitLimit must be >= 1, was 0");
    }

    @Test
    void aClassOrModuleDeclarationIsNamedWithTheMethodItWasFoundCovering() {
        ResolvedLimits classLimits = resource(List.of(), List.of(on(DeclaredOn.CLASS, "AdminResource").permitLimit(3)
                .cost(4).build()), List.of());
        assertThat(classLimits.problems()).extracting(Problem::message).containsExactly("@RateLimit on AdminResource "
                + "(covering AdminResource.purge()): cost must be between 1 and permitLimit (3), was 4");
        ResolvedLimits module = resource(List.of(on(DeclaredOn.MODULE, "TodosApplication").windowSeconds(0).build()),
                List.of(), List.of());
        assertThat(module.problems()).extracting(Problem::message).containsExactly("@RateLimit on TodosApplication "
                + "(covering AdminResource.purge()): windowSeconds must be between 1 and 31536000, was 0");
    }

    @Test
    void aWaitIsAProblemOnAResourceMethodOnlyAndANegativeWaitEverywhere() {
        LimitDeclaration waits = on(DeclaredOn.METHOD, "Partner.send()").name("partner").maxWaitMillis(500).build();
        assertThat(LimitResolver.resolve(null, MethodDeclarations.beanMethod("Partner.send()", List.of(),
                List.of(waits))).problems()).isEmpty();
        assertThat(LimitResolver.resolve(null, MethodDeclarations.resourceMethod("Partner.send()", List.of(), List.of(),
                List.of(waits))).problems()).extracting(Problem::message).containsExactly("@RateLimit on Partner.send(): "
                + "the limit \"partner\" may wait 500 ms (maxWaitMillis), but a resource method refuses at once: waiting "
                + "is for calls to other services (a CDI bean or a MicroProfile Rest Client method)");
        LimitDeclaration negative = on(DeclaredOn.METHOD, "Partner.send()").maxWaitMillis(-1).build();
        assertThat(LimitResolver.resolve(null, MethodDeclarations.beanMethod("Partner.send()", List.of(),
                List.of(negative))).problems()).extracting(Problem::message)
                .containsExactly("@RateLimit on Partner.send(): maxWaitMillis must be >= 0, was -1");
    }

    @Test
    void oneNameTwiceAmongTheLimitsOfAMethodIsOneProblemNamingTheMethod() {
        LimitDeclaration again = on(DeclaredOn.METHOD, "AdminResource.purge()").name("admin").build();
        LimitDeclaration thrice = on(DeclaredOn.METHOD, "AdminResource.purge()").name("admin").build();
        ResolvedLimits limits = resource(List.of(), List.of(CLASS), List.of(again, thrice));
        assertThat(limits.problems()).extracting(Problem::message).containsExactly("@RateLimit on AdminResource.purge(): "
                + "name \"admin\" is used by more than one limit covering the method (global, module, class and method "
                + "limits together); each would spend from the same count twice");
        assertThat(limits.problems().get(0).declaration()).isNull();
        assertThat(resource(List.of(), List.of(), List.of(on(DeclaredOn.METHOD, "x").name("application").build()))
                .problems()).singleElement().asString().startsWith("@RateLimit on AdminResource.purge(): name "
                        + "\"application\"");
    }

    @Test
    void whatAReaderCouldNotReadIsAProblemNamingTheMember() {
        LimitDeclaration unread = on(DeclaredOn.METHOD, "R.m()").member("algorithm", "FASTEST")
                .member("burstiness", true).build();
        assertThat(LimitResolver.resolve(null, MethodDeclarations.beanMethod("R.m()", List.of(), List.of(unread)))
                .problems()).extracting(Problem::message).containsExactly(
                "@RateLimit on R.m(): algorithm FASTEST is not one this version of ratelimit knows [SLIDING_WINDOW, "
                        + "STRICT_WINDOW, TOKEN_BUCKET]",
                "@RateLimit on R.m(): the member burstiness (true) is not one this version of ratelimit reads "
                        + LimitDeclaration.MEMBERS);
    }

    @Test
    void declarationsApartFromAnyMethodAreCheckedOnTheirPlace() {
        List<Problem> problems = LimitResolver.check(List.of(
                on(DeclaredOn.MODULE, "TodosApplication").name("m").permitLimit(0).build(),
                on(DeclaredOn.MODULE, "TodosApplication").name("n").build(),
                on(DeclaredOn.MODULE, "TodosApplication").name("n").maxWaitMillis(10).build()), Kind.RESOURCE_METHOD);
        assertThat(problems).extracting(Problem::message).containsExactly(
                "@RateLimit on TodosApplication: permitLimit must be >= 1, was 0",
                "@RateLimit on TodosApplication: the limit \"n\" may wait 10 ms (maxWaitMillis), but a resource method "
                        + "refuses at once: waiting is for calls to other services (a CDI bean or a MicroProfile Rest "
                        + "Client method)",
                "@RateLimit on TodosApplication: name \"n\" is used by more than one limit covering the method (global, "
                        + "module, class and method limits together); each would spend from the same count twice");
    }

    @Test
    void aDeclarationInTheListOfAnotherLevelIsAReadersMistake() {
        assertThatThrownBy(() -> MethodDeclarations.resourceMethod("R.m()", List.of(CLASS), List.of(), List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("CLASS level among those on the MODULE");
        assertThatThrownBy(() -> LimitResolver.resolve(CLASS, MethodDeclarations.beanMethod("R.m()", List.of(),
                List.of()))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not the global limit");
    }
}
