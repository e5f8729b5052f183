package dev.ratelimit.openapi.internal.index;

import dev.ratelimit.core.declaration.KeyParameter;
import dev.ratelimit.core.declaration.LimitDeclaration;
import java.util.List;

/**
 * One resource method under one path, as the processor saw it: what it declares, before anything is resolved. A
 * method reached through several sub-resource locators has one entry per path.
 *
 * @param rootClass    binary name of the root resource class whose tree holds the entry (the
 *                     processor replaces all entries of a root class when it compiles it again)
 * @param httpMethod   {@code GET}, {@code POST}, ...
 * @param path         the path below the application path (class, locators and method {@code @Path}), normalized
 * @param javaMethod   the resource method, see {@link IndexFormat#methodKey}
 * @param where        the method as messages name it: {@code TodoResource.create(NewTodo, UriInfo)}
 * @param classLimits  the {@code @RateLimit}s of the resource class (the sub-resource class for a
 *                     sub-resource method), in declaration order
 * @param methodLimits the method's own {@code @RateLimit}s, in declaration order
 * @param keys         its {@code @RateLimitKey} parameters, in order
 */
public record IndexedMethod(String rootClass, String httpMethod, String path, String javaMethod, String where,
                            List<LimitDeclaration> classLimits, List<LimitDeclaration> methodLimits,
                            List<KeyParameter> keys) {

    public IndexedMethod {
        classLimits = List.copyOf(classLimits);
        methodLimits = List.copyOf(methodLimits);
        keys = List.copyOf(keys);
    }

    /** A method without {@code @RateLimitKey} parameters. */
    public IndexedMethod(String rootClass, String httpMethod, String path, String javaMethod, String where,
                         List<LimitDeclaration> classLimits, List<LimitDeclaration> methodLimits) {
        this(rootClass, httpMethod, path, javaMethod, where, classLimits, methodLimits, List.of());
    }

    /** The binary name of the resource class, from {@link #javaMethod()}. */
    public String resourceClass() {
        return javaMethod.substring(0, javaMethod.indexOf('#'));
    }
}
