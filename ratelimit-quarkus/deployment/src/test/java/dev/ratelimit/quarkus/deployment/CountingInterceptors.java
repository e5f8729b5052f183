package dev.ratelimit.quarkus.deployment;

import dev.ratelimit.RateLimit;
import jakarta.annotation.Priority;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Interceptors of the test application bound to {@code @RateLimit} and to its container, as the library's are: they
 * record every method around which CDI runs an interceptor for {@code @RateLimit}, which the library's interceptor
 * would run around too (test only).
 */
final class CountingInterceptors {

    static final List<String> INTERCEPTED = new CopyOnWriteArrayList<>();

    private CountingInterceptors() {
    }

    static Object record(InvocationContext invocation) throws Exception {
        INTERCEPTED.add(invocation.getMethod().getDeclaringClass().getSimpleName() + "." + invocation.getMethod().getName());
        return invocation.proceed();
    }

    @RateLimit
    @Interceptor
    @Priority(1)
    public static class Single {
        @AroundInvoke
        Object around(InvocationContext invocation) throws Exception {
            return record(invocation);
        }
    }

    @RateLimit.List({})
    @Interceptor
    @Priority(1)
    public static class Repeated {
        @AroundInvoke
        Object around(InvocationContext invocation) throws Exception {
            return record(invocation);
        }
    }
}
