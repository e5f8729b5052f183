package dev.ratelimit.cdi.internal;

import dev.ratelimit.RateLimit;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

/** Enforces {@code @RateLimit} on CDI bean methods. Runs early, before other library interceptors. */
@RateLimit
@Interceptor
@Priority(RateLimitInterceptor.PRIORITY)
public class RateLimitInterceptor {

    /** Before transactions and fault tolerance: a refused call does no work. */
    public static final int PRIORITY = Interceptor.Priority.LIBRARY_BEFORE + 100;

    @Inject
    BeanLimits limits;

    @AroundInvoke
    Object limit(InvocationContext invocation) throws Exception {
        return limits.invoke(invocation);
    }
}
