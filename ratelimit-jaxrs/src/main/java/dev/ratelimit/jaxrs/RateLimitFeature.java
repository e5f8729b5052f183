package dev.ratelimit.jaxrs;

import dev.ratelimit.cdi.LimitReader;
import dev.ratelimit.cdi.RateLimitRuntime;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.binding.ScopedLimits;
import dev.ratelimit.jaxrs.internal.AdminResource;
import dev.ratelimit.jaxrs.internal.ApplicationLocator;
import dev.ratelimit.jaxrs.internal.DecidingFilter;
import dev.ratelimit.jaxrs.internal.DeferredRefusalFilter;
import dev.ratelimit.jaxrs.internal.HeaderFilter;
import dev.ratelimit.jaxrs.internal.PeerAddresses;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Configuration;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.Provider;
import java.lang.reflect.Method;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Binds each resource method's limits once, at deployment (global, module, class, method; configuration
 * overrides, modes and plans applied by the engine), and registers ready-made filters on it: the deciding
 * filter of each scope, the deferred refusal, and the header filter. Idempotent (some containers configure
 * a method twice) and tolerant of resource classes that are not the application's. With
 * {@code ratelimit.enabled=false} it registers nothing.
 *
 * <p>Discovered as a {@code @Provider}; an application that lists its classes itself registers it (with
 * {@link RateLimitExceptionMapper} and {@link StoreFailureMapper}).
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
        if (resourceClass == null || method == null || resourceClass.getName().startsWith("org.glassfish.jersey.")
                || LimitReader.userClass(resourceClass) == AdminResource.class) {
            return; // the admin API is counted by no limit: an operator must get in during an incident
        }
        Deployment d = deployment();
        if (!d.runtime.settings().enabled()) {
            return;
        }
        Class<?> userClass = LimitReader.userClass(resourceClass);
        // a limit per argument is decided by the CDI interceptor, which reaches a resource method of a bean only
        boolean interceptable = !LimitReader.hasKeyParameter(method) || isBean(userClass);
        ScopedLimits limits = d.runtime.engine().binder().bindResourceMethod(LimitReader.forResourceMethod(
                d.runtime.settings(), d.moduleClass, userClass, method, interceptable),
                PeerAddresses.knownRuntime(context));
        // bound even without TRANSPORT limits: it makes the request's ledger, which bean limits and the
        // programmatic API join
        context.register(DecidingFilter.of(RateLimitScope.TRANSPORT, d.runtime, method, limits.transport()),
                TRANSPORT_PRIORITY);
        if (!limits.principal().isEmpty()) {
            context.register(DecidingFilter.of(RateLimitScope.PRINCIPAL, d.runtime, method, limits.principal()),
                    PRINCIPAL_PRIORITY);
        }
        context.register(d.refusal, DeferredRefusalFilter.PRIORITY);
        // one per method, the same instance however often the method is configured: it keeps the method's formats
        context.register(d.headers.computeIfAbsent(method, m -> new HeaderFilter(d.runtime)), Priorities.HEADER_DECORATOR);
    }

    private static boolean isBean(Class<?> type) {
        return !CDI.current().getBeanManager().getBeans(type, Any.Literal.INSTANCE).isEmpty();
    }

    private Deployment deployment() {
        Deployment d = deployment;
        if (d == null) {
            synchronized (this) {
                d = deployment;
                if (d == null) {
                    // a client proxy: the filters call it once, and per request only what it hands out (the engine,
                    // the ledgers), which are plain objects
                    RateLimitRuntime runtime = CDI.current().select(RateLimitRuntime.class).get();
                    d = new Deployment(runtime, ApplicationLocator.moduleClass(configuration), new DeferredRefusalFilter(),
                            new ConcurrentHashMap<>());
                    deployment = d;
                }
            }
        }
        return d;
    }

    private record Deployment(RateLimitRuntime runtime, Class<?> moduleClass, DeferredRefusalFilter refusal,
                              ConcurrentHashMap<Method, HeaderFilter> headers) {
    }
}
