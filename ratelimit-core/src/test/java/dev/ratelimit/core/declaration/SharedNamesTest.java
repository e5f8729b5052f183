package dev.ratelimit.core.declaration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.config.RateLimitSettings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Limits sharing a name, across methods: one algorithm, one {@code per}; sizes may differ. */
class SharedNamesTest {

    private static ResolvedLimits method(String where, LimitDeclaration.Builder... limits) {
        return LimitResolver.resolve(null, MethodDeclarations.beanMethod(where, List.of(),
                java.util.Arrays.stream(limits).map(LimitDeclaration.Builder::build).toList()));
    }

    private static LimitDeclaration.Builder api(String where) {
        return LimitDeclaration.builder(DeclaredOn.METHOD, where).name("api");
    }

    @Test
    void limitsSharingANameThatDisagreeOnTheAlgorithmOrPerAreProblemsNamingBothMethods() {
        SharedNames names = new SharedNames(RateLimitSettings.of(Map.of()));
        assertThat(names.add(method("A.a()", api("A.a()").permitLimit(10)))).isEmpty();
        assertThat(names.add(method("B.b()", api("B.b()").permitLimit(20)))).isEmpty(); // another size: allowed
        assertThat(names.add(method("C.c()", api("C.c()").algorithm(RateLimitAlgorithm.TOKEN_BUCKET)
                .per(RateLimitPer.APPLICATION)))).containsExactly(
                "ratelimit: the limit name \"api\" has the algorithm SLIDING_WINDOW on A.a() and TOKEN_BUCKET on C.c(): "
                        + "limits that share a name share a count, so they must share an algorithm",
                "ratelimit: the limit name \"api\" counts per caller on A.a() and per application on C.c(): limits "
                        + "that share a name share a count, so they must agree on whose it is (per)");
    }

    @Test
    void theConfigurationsOverridesApplyFirst() {
        SharedNames names = new SharedNames(RateLimitSettings.of(Map.of("ratelimit.limits.api.algorithm", "token-bucket",
                "ratelimit.limits.api.per", "application")));
        names.add(method("A.a()", api("A.a()")));
        assertThat(names.add(method("C.c()", api("C.c()").algorithm(RateLimitAlgorithm.STRICT_WINDOW)
                .per(RateLimitPer.CALLER)))).isEmpty();
    }

    @Test
    void aLimitWithAProblemOfItsOwnIsLeftOut() {
        SharedNames names = new SharedNames(RateLimitSettings.of(Map.of()));
        names.add(method("A.a()", api("A.a()")));
        assertThat(names.add(method("B.b()", api("B.b()").permitLimit(0).algorithm(RateLimitAlgorithm.TOKEN_BUCKET))))
                .isEmpty();
    }
}
