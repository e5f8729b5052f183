package dev.ratelimit.openapi;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.LimitResolver;
import dev.ratelimit.core.declaration.MethodDeclarations;
import dev.ratelimit.core.declaration.ResolvedLimits;
import java.util.List;

/** Declarations and resolved limits as the tests of this module write them. */
public final class Limits {

    private Limits() {
    }

    /** A limit declared on {@code level}, found on {@code place}: cost 1, sliding window, transport scope. */
    public static LimitDeclaration declared(DeclaredOn level, String place, String name, int permitLimit,
                                            int windowSeconds) {
        return declared(level, place, new RateLimitPolicy(name, permitLimit, windowSeconds), 1, RateLimitScope.TRANSPORT);
    }

    /** A limit declared on {@code level}, found on {@code place}, of {@code policy}, {@code cost} and {@code scope}. */
    public static LimitDeclaration declared(DeclaredOn level, String place, RateLimitPolicy policy, int cost,
                                            RateLimitScope scope) {
        return LimitDeclaration.builder(level, place).policy(policy).cost(cost).scope(scope).build();
    }

    /** A limit declared on {@code level}, found on {@code place}, of {@code algorithm}. */
    public static LimitDeclaration declared(DeclaredOn level, String place, String name, int permitLimit,
                                            int windowSeconds, RateLimitAlgorithm algorithm) {
        return declared(level, place, new RateLimitPolicy(name, permitLimit, windowSeconds, algorithm), 1,
                RateLimitScope.TRANSPORT);
    }

    /** The limits a resource method {@code where} declares itself, resolved. */
    public static ResolvedLimits resolved(String where, LimitDeclaration... own) {
        return LimitResolver.resolve(null, MethodDeclarations.resourceMethod(where, List.of(), List.of(), List.of(own)));
    }
}
