package dev.ratelimit.quarkus.runtime;

import dev.ratelimit.core.declaration.MethodDeclarations;
import java.util.List;

/**
 * A resource method of the application as Quarkus REST deploys it, with what its module, class and method declare
 * (the build read them from the Jandex index and checked them; run-time init resolves them again with the run-time
 * configuration's global limit). Made at build time, recorded, bound by {@link RateLimitRecorder}.
 *
 * @param id             the index of its binding, which its {@link ResourceMethodHandler} carries
 * @param declarations   its declarations, and the method as messages name it
 * @param intercepted    true when the CDI interceptor still runs around the method (the build could not take its
 *                       binding off): its {@code java.lang.reflect.Method} is then looked up once, at run-time init,
 *                       so that the interceptor recognises the request's own method (exactly once)
 * @param declaringClass the class that declares the Java method (for {@code intercepted} only)
 * @param methodName     its name (for {@code intercepted} only)
 * @param parameterTypes its parameter types, as {@link Class#getName()} writes them (for {@code intercepted} only)
 */
public record ResourceMethodLimits(int id, MethodDeclarations declarations, boolean intercepted, String declaringClass,
                                   String methodName, List<String> parameterTypes) {
}
