package dev.ratelimit.cdi.internal;

import dev.ratelimit.RateLimit;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

/**
 * Enforces repeated {@code @RateLimit}s (their container {@code @RateLimit.List}) on containers that bind
 * the container annotation rather than each repetition (Quarkus ArC on classes). Where both interceptors
 * are bound, {@link BeanLimits} decides once per invocation.
 */
@RateLimit.List({})
@Interceptor
@Priority(RateLimitInterceptor.PRIORITY)
public class RateLimitListInterceptor {

    @Inject
    BeanLimits limits;

    @AroundInvoke
    Object limit(InvocationContext invocation) throws Exception {
        return limits.invoke(invocation);
    }
}
