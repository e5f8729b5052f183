package dev.ratelimit.quarkus.runtime;

import java.util.List;

/**
 * A resource method of the application as Quarkus REST deploys it, with the limits its declarations give it
 * (module, class, method; the global limit is added at run-time init, from the run-time configuration). Made at
 * build time, recorded, bound by {@link RateLimitRecorder}.
 *
 * @param id             the index of its binding, which its {@link ResourceMethodHandler} carries
 * @param where          the method, as messages name it: {@code TodoResource.create(NewTodo, UriInfo)}
 * @param declared       its declared limits in order (module or class, then method; declaration order)
 * @param intercepted    true when the CDI interceptor still runs around the method (the build could not take its
 *                       binding off): its {@code java.lang.reflect.Method} is then looked up once, at run-time init,
 *                       so that the interceptor recognises the request's own method (exactly once)
 * @param declaringClass the class that declares the Java method (for {@code intercepted} only)
 * @param methodName     its name (for {@code intercepted} only)
 * @param parameterTypes its parameter types, as {@link Class#getName()} writes them (for {@code intercepted} only)
 */
public record ResourceMethodLimits(int id, String where, List<LimitDeclaration> declared, boolean intercepted,
                                   String declaringClass, String methodName, List<String> parameterTypes) {
}
