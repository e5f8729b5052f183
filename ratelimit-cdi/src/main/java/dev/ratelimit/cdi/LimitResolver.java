package dev.ratelimit.cdi;

import dev.ratelimit.RateLimit;
import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.LimitRules;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.config.RateLimitSettings;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.StringJoiner;

/**
 * Reads {@code @RateLimit} declarations and resolves the limits covering a method (SPEC 2). Called at
 * deployment only: it reflects.
 */
public final class LimitResolver {

    private LimitResolver() {
    }

    /**
     * The limits of a Jakarta REST resource method.
     *
     * @param settings      the settings (for the global limit)
     * @param module        the {@code Application} subclass, or null when there is none
     * @param resourceClass the resource class
     * @param method        the resource method
     * @throws InvalidRateLimitException naming the method and the value
     */
    public static ResolvedLimits forResourceMethod(RateLimitSettings settings, Class<?> module, Class<?> resourceClass,
                                                   Method method) {
        String where = describe(resourceClass, method);
        List<ResolvedLimit> limits = new ArrayList<>();
        if (settings.global() != null) {
            limits.add(new ResolvedLimit(settings.global(), 1, settings.globalScope(), Level.GLOBAL));
        }
        List<ResolvedLimit> own = new ArrayList<>();
        addDeclared(own, resourceClass, Level.CLASS, where);
        addDeclared(own, method, Level.METHOD, where);
        if (own.isEmpty() && module != null) {
            addDeclared(limits, module, Level.MODULE, where);
        }
        limits.addAll(own);
        return checked(where, limits);
    }

    /** The limits of a CDI bean method: its class's, then its own. */
    public static ResolvedLimits forBeanMethod(Class<?> beanClass, Method method) {
        String where = describe(beanClass, method);
        List<ResolvedLimit> limits = new ArrayList<>();
        addDeclared(limits, beanClass, Level.CLASS, where);
        addDeclared(limits, method, Level.METHOD, where);
        return checked(where, limits);
    }

    /** True when {@code element} carries {@code @RateLimit} (once or repeated). */
    public static boolean isAnnotated(AnnotatedElement element) {
        return element.isAnnotationPresent(RateLimit.class) || element.isAnnotationPresent(RateLimit.List.class);
    }

    /**
     * The method a user wrote, under a container's generated wrapper: Quarkus invokes the interceptors of a
     * MicroProfile Rest Client on a generated class that implements the client interface ({@code Iface$$CDIWrapper}),
     * so its limits are those of the interface's method, named as the interface's. Else the method itself.
     */
    public static Method declaredMethod(Method method) {
        Class<?> type = method.getDeclaringClass();
        if (type.isInterface() || !type.getName().contains("$$")) {
            return method;
        }
        for (Class<?> implemented : type.getInterfaces()) {
            try {
                Method declared = implemented.getMethod(method.getName(), method.getParameterTypes());
                if (isAnnotated(declared) || isAnnotated(declared.getDeclaringClass())) {
                    return declared;
                }
            } catch (NoSuchMethodException e) {
                // not this interface's
            }
        }
        return method;
    }

    /** The class a user wrote, under a container's proxy or subclass (Weld, ArC, Liberty). */
    public static Class<?> userClass(Class<?> type) {
        Class<?> c = type;
        while (c.getSuperclass() != null && (c.isSynthetic() || c.getName().contains("$$")
                || c.getName().contains("$Proxy$_$$_Weld"))) {
            c = c.getSuperclass();
        }
        return c;
    }

    /** {@code TodoResource.create(TodoRequest)}: how messages name a method. */
    public static String describe(Class<?> type, Method method) {
        StringJoiner params = new StringJoiner(", ", "(", ")");
        for (Class<?> p : method.getParameterTypes()) {
            params.add(p.getSimpleName());
        }
        return type.getSimpleName() + "." + method.getName() + params;
    }

    private static void addDeclared(List<ResolvedLimit> into, AnnotatedElement element, Level level, String where) {
        for (RateLimit annotation : element.getAnnotationsByType(RateLimit.class)) {
            RateLimitPolicy policy;
            try {
                policy = new RateLimitPolicy(annotation.name(), annotation.permitLimit(), annotation.windowSeconds(),
                        annotation.algorithm());
                if (annotation.scope() == null) {
                    throw new IllegalArgumentException("scope must not be null");
                }
            } catch (IllegalArgumentException e) {
                throw new InvalidRateLimitException("@RateLimit on " + onWhat(element, level, where) + ": "
                        + e.getMessage());
            }
            String error = LimitRules.costError(annotation.cost(), policy.permitLimit());
            if (error == null) {
                error = LimitRules.maxWaitError(annotation.maxWaitMillis());
            }
            if (error == null && annotation.per() == null) {
                error = "per must not be null";
            }
            if (error != null) {
                throw new InvalidRateLimitException("@RateLimit on " + onWhat(element, level, where) + ": " + error);
            }
            into.add(new ResolvedLimit(policy, annotation.cost(), annotation.scope(), level, annotation.maxWaitMillis(),
                    annotation.per()));
        }
    }

    private static String onWhat(AnnotatedElement element, Level level, String where) {
        if (level == Level.METHOD) {
            return where;
        }
        String name = element instanceof Class<?> c ? c.getSimpleName() : String.valueOf(element);
        return name + " (covering " + where + ")";
    }

    private static ResolvedLimits checked(String where, List<ResolvedLimit> limits) {
        Set<String> names = new HashSet<>();
        for (ResolvedLimit limit : limits) {
            if (!names.add(limit.policy().name())) {
                throw new InvalidRateLimitException("@RateLimit on " + where + ": "
                        + LimitRules.duplicateName(limit.policy().name()));
            }
        }
        return new ResolvedLimits(where, limits);
    }
}
