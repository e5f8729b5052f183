package dev.ratelimit.internal.cdi;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimitPartitioner;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.internal.engine.Decisions;
import dev.ratelimit.internal.engine.RequestLedger;
import dev.ratelimit.internal.resolve.LimitResolver;
import dev.ratelimit.internal.resolve.ResolvedLimits;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.interceptor.InvocationContext;
import java.lang.reflect.Method;
import java.security.Principal;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the interceptors do for a {@code @RateLimit} CDI bean method. Limits are resolved per method
 * once (at start-up by {@link RateLimitStartup}, or on the first call) and cached.
 *
 * <p>Within a Jakarta REST request the partition is the request's, and the request's own resource
 * method is left alone: its limits were decided by the filters (exactly once).
 */
@ApplicationScoped
public class BeanLimitGuard {

    private static final String HANDLED = BeanLimitGuard.class.getName();

    @Inject
    RateLimitRuntime runtime;

    @Inject
    @Any
    Instance<Principal> principal;

    /** Guarded by the map: resolved limits per method; an absent method has not been seen yet. */
    private final ConcurrentHashMap<Method, Guarded> methods = new ConcurrentHashMap<>();
    private volatile boolean anyLimited;

    /**
     * True once a limited bean method is known: then every Jakarta REST request needs a ledger, so
     * that a bean limit reached from an unlimited resource method partitions like the request.
     */
    public boolean anyLimited() {
        return anyLimited;
    }

    /** Resolves and caches the limits of a bean method; called at start-up for every limited method. */
    public ResolvedLimits resolve(Class<?> beanClass, Method method) {
        Guarded guarded = methods.computeIfAbsent(method, m -> {
            ResolvedLimits limits = LimitResolver.forBeanMethod(beanClass, m);
            runtime.declared(limits);
            if (!limits.isEmpty()) {
                anyLimited = true;
            }
            return new Guarded(limits.policies(), CompletionStage.class.isAssignableFrom(m.getReturnType()), limits);
        });
        return guarded.limits;
    }

    Object invoke(InvocationContext invocation) throws Exception {
        Map<String, Object> data = invocation.getContextData();
        if (data.putIfAbsent(HANDLED, Boolean.TRUE) != null) {
            return invocation.proceed(); // both interceptors bound (@RateLimit and its container): decide once
        }
        Method method = invocation.getMethod();
        Guarded guarded = methods.get(method);
        if (guarded == null) {
            resolve(method.getDeclaringClass(), method);
            guarded = methods.get(method);
        }
        if (guarded.policies.isEmpty()) {
            return invocation.proceed();
        }
        RequestLedger ledger = runtime.currentLedger();
        if (ledger != null && ledger.isResourceMethod(method)) {
            return invocation.proceed();
        }
        String partition = ledger != null ? ledger.partition() : runtime.partitioner().partition(new CdiCaller());
        RateLimitDecision decision;
        try {
            decision = Decisions.await(runtime.store().acquire(partition, guarded.policies));
        } catch (Decisions.StoreFailedException e) {
            throw new Decisions.StoreFailedException(guarded.policies + " for " + guarded.limits.where(), e.getCause());
        }
        if (ledger != null) {
            ledger.record(decision);
        }
        if (!decision.allowed()) {
            RateLimitExceededException refused = new RateLimitExceededException(decision);
            if (guarded.async) {
                return CompletableFuture.failedFuture(refused);
            }
            throw refused;
        }
        return invocation.proceed();
    }

    private record Guarded(List<RateLimitPolicy> policies, boolean async, ResolvedLimits limits) {
    }

    /** The caller of a bean method called outside a Jakarta REST request: the CDI {@code Principal}, no headers. */
    private final class CdiCaller implements RateLimitPartitioner.Caller {
        @Override
        public Principal principal() {
            if (!principal.isResolvable()) {
                return null;
            }
            try {
                Principal p = principal.get();
                return p == null || p.getName() == null ? null : p;
            } catch (RuntimeException e) {
                return null;
            }
        }

        @Override
        public String header(String name) {
            return null;
        }
    }
}
