package dev.ratelimit.core.declaration;

import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.RateLimitScope;
import java.util.ArrayList;
import java.util.List;

/**
 * The limits covering one method, as {@link LimitResolver} decided them: ordered (global, module, class, method; each
 * in declaration order), as declared (before configuration), with what is wrong with them. Only the resolver makes
 * them; the engine binds them, the OpenAPI document publishes them. Immutable.
 *
 * @param where    the method, as messages name it: {@code TodoResource.create(NewTodo, UriInfo)}
 * @param kind     what decides them: the Jakarta REST filters or the CDI interceptor
 * @param limits   every limit covering the method, in order
 * @param problems what is wrong, in the order found; empty when the method can be deployed
 * @param key      the method's {@code @RateLimitKey} parameter, which its {@code per = ARGUMENT} limits count by; null
 *                 when it has none (or more than one: a problem)
 */
public record ResolvedLimits(String where, MethodDeclarations.Kind kind, List<LimitDeclaration> limits,
                             List<Problem> problems, KeyParameter key) {

    public ResolvedLimits {
        limits = List.copyOf(limits);
        problems = List.copyOf(problems);
    }

    /**
     * One thing wrong with a method's limits.
     *
     * @param declaration the declaration it is about, or null when it is about several (a name used twice)
     * @param message     the message a deployment fails with, naming the place and the value:
     *                    {@code @RateLimit on TodoResource.all(): permitLimit must be >= 1, was 0}
     */
    public record Problem(LimitDeclaration declaration, String message) {
        @Override
        public String toString() {
            return message;
        }
    }

    public boolean isEmpty() {
        return limits.isEmpty();
    }

    /** True for a resource method's limits (decided by the Jakarta REST filters). */
    public boolean ofResourceMethod() {
        return kind == MethodDeclarations.Kind.RESOURCE_METHOD;
    }

    /** The limits that decide in {@code scope}, in order. */
    public List<LimitDeclaration> inScope(RateLimitScope scope) {
        List<LimitDeclaration> inScope = new ArrayList<>(limits.size());
        for (LimitDeclaration limit : limits) {
            if (limit.scope() == scope) {
                inScope.add(limit);
            }
        }
        return inScope;
    }

    /**
     * These limits, when nothing is wrong with them.
     *
     * @throws InvalidRateLimitException with the first problem's message
     */
    public ResolvedLimits orThrow() {
        if (!problems.isEmpty()) {
            throw new InvalidRateLimitException(problems.get(0).message());
        }
        return this;
    }
}
