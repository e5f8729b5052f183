package dev.ratelimit.core.declaration;

import java.util.List;
import java.util.Objects;

/**
 * What a reader found for one method: the declarations that may cover it, each list in declaration order, before
 * anything is decided about them. {@link LimitResolver} decides which cover the method. Immutable.
 *
 * @param where       the method, as messages name it: {@code TodoResource.create(NewTodo, UriInfo)}
 * @param kind        what decides its limits: the Jakarta REST filters or the CDI interceptor
 * @param module      the {@code Application} subclass's declarations (empty for a bean method, or where there is
 *                    no {@code Application} subclass)
 * @param classLevel  its class's (or client interface's) declarations
 * @param methodLevel its own declarations
 * @param keys        its parameters that carry {@code @RateLimitKey}, in order (a method has at most one that is valid)
 * @param interceptable false when the CDI interceptor cannot reach the method: a resource method of a class that is
 *                    not a CDI bean (a {@code per = ARGUMENT} limit is decided by the interceptor)
 *
 * <p>One constructor, the canonical one: a build records these (the Quarkus extension's bytecode recorder).
 */
public record MethodDeclarations(String where, Kind kind, List<LimitDeclaration> module,
                                 List<LimitDeclaration> classLevel, List<LimitDeclaration> methodLevel,
                                 List<KeyParameter> keys, boolean interceptable) {

    /** What decides a method's limits. */
    public enum Kind {
        /** A Jakarta REST resource method: the filters decide its limits, once per request, and it refuses at once. */
        RESOURCE_METHOD,
        /** A CDI bean method (or a MicroProfile Rest Client interface method): the interceptor, once per call. */
        BEAN_METHOD
    }

    /** @throws IllegalArgumentException when a declaration sits in the list of another level (a reader's mistake) */
    public MethodDeclarations {
        Objects.requireNonNull(where, "where");
        Objects.requireNonNull(kind, "kind");
        module = levelled(module, DeclaredOn.MODULE);
        classLevel = levelled(classLevel, DeclaredOn.CLASS);
        methodLevel = levelled(methodLevel, DeclaredOn.METHOD);
        keys = List.copyOf(keys);
        if (kind == Kind.BEAN_METHOD && !module.isEmpty()) {
            throw new IllegalArgumentException("a bean method is covered by no module declaration: " + where);
        }
    }

    /** A resource method's declarations. */
    public static MethodDeclarations resourceMethod(String where, List<LimitDeclaration> module,
                                                    List<LimitDeclaration> classLevel,
                                                    List<LimitDeclaration> methodLevel) {
        return new MethodDeclarations(where, Kind.RESOURCE_METHOD, module, classLevel, methodLevel, List.of(), true);
    }

    /** A bean method's declarations: its class's and its own. */
    public static MethodDeclarations beanMethod(String where, List<LimitDeclaration> classLevel,
                                                List<LimitDeclaration> methodLevel) {
        return new MethodDeclarations(where, Kind.BEAN_METHOD, List.of(), classLevel, methodLevel, List.of(), true);
    }

    /**
     * These declarations with the method's {@code @RateLimitKey} parameters.
     *
     * @param interceptable false when the CDI interceptor cannot reach the method (a resource class that is not a
     *                      CDI bean)
     */
    public MethodDeclarations withKeys(List<KeyParameter> keys, boolean interceptable) {
        return new MethodDeclarations(where, kind, module, classLevel, methodLevel, keys, interceptable);
    }

    /** True when nothing is declared for the method at any level. */
    public boolean isEmpty() {
        return module.isEmpty() && classLevel.isEmpty() && methodLevel.isEmpty();
    }

    private static List<LimitDeclaration> levelled(List<LimitDeclaration> declarations, DeclaredOn level) {
        for (LimitDeclaration d : declarations) {
            if (d.declaredOn() != level) {
                throw new IllegalArgumentException("a declaration on the " + d.declaredOn()
                        + " level among those on the " + level + " level: " + d);
            }
        }
        return List.copyOf(declarations);
    }
}
