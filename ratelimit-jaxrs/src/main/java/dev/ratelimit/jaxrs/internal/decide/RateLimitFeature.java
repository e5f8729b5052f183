package dev.ratelimit.jaxrs.internal.decide;

import dev.ratelimit.RateLimitScope;
import dev.ratelimit.internal.cdi.BeanLimitGuard;
import dev.ratelimit.internal.cdi.RateLimitRuntime;
import dev.ratelimit.internal.resolve.LimitResolver;
import dev.ratelimit.internal.resolve.ResolvedLimits;
import dev.ratelimit.jaxrs.internal.headers.RateLimitResponseFilter;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Configuration;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.Provider;
import java.lang.reflect.Method;

/**
 * Resolves each resource method's limits once, at deployment (global, module, class, method), and
 * binds ready-made filters to it: the deciding filter of each scope, the deferred refusal, and the
 * response filter. Idempotent (some containers configure a method twice) and tolerant of resource
 * classes that are not the application's.
 */
@Provider
public class RateLimitFeature implements DynamicFeature {

    /** After authentication, before authorization. */
    public static final int TRANSPORT_PRIORITY = (Priorities.AUTHENTICATION + Priorities.AUTHORIZATION) / 2;

    /** After authorization, before header decorators. */
    public static final int PRINCIPAL_PRIORITY = (Priorities.AUTHORIZATION + Priorities.HEADER_DECORATOR) / 2;

    @Context
    Configuration configuration;

    private volatile Deployment deployment;

    @Override
    public void configure(ResourceInfo resourceInfo, FeatureContext context) {
        Class<?> resourceClass = resourceInfo.getResourceClass();
        Method method = resourceInfo.getResourceMethod();
        if (resourceClass == null || method == null || resourceClass.getName().startsWith("org.glassfish.jersey.")) {
            return;
        }
        Deployment d = deployment();
        ResolvedLimits limits = LimitResolver.forResourceMethod(d.runtime.settings().global(), d.moduleClass,
                LimitResolver.userClass(resourceClass), method);
        d.runtime.declared(limits);
        context.register(DecidingFilter.of(RateLimitScope.TRANSPORT, d.runtime, d.beans, method, limits.where(),
                limits.policies(RateLimitScope.TRANSPORT)), TRANSPORT_PRIORITY);
        if (!limits.policies(RateLimitScope.PRINCIPAL).isEmpty()) {
            context.register(DecidingFilter.of(RateLimitScope.PRINCIPAL, d.runtime, d.beans, method, limits.where(),
                    limits.policies(RateLimitScope.PRINCIPAL)), PRINCIPAL_PRIORITY);
        }
        context.register(d.refusal, DeferredRefusalFilter.PRIORITY);
        context.register(d.headers, Priorities.HEADER_DECORATOR);
    }

    private Deployment deployment() {
        Deployment d = deployment;
        if (d == null) {
            synchronized (this) {
                d = deployment;
                if (d == null) {
                    CDI<Object> cdi = CDI.current();
                    RateLimitRuntime runtime = cdi.select(RateLimitRuntime.class).get();
                    d = new Deployment(runtime, cdi.select(BeanLimitGuard.class).get(),
                            ApplicationLocator.moduleClass(configuration), new DeferredRefusalFilter(),
                            new RateLimitResponseFilter(runtime.store()));
                    deployment = d;
                }
            }
        }
        return d;
    }


    private record Deployment(RateLimitRuntime runtime, BeanLimitGuard beans, Class<?> moduleClass,
                              DeferredRefusalFilter refusal, RateLimitResponseFilter headers) {
    }
}
