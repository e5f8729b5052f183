package dev.ratelimit.internal.resolve;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitPolicy;
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
     * @param global      the global limit, or null
     * @param module      the {@code Application} subclass, or null when there is none
     * @param resourceClass the resource class
     * @param method      the resource method
     * @throws InvalidRateLimitException naming the method and the value
     */
    public static ResolvedLimits forResourceMethod(RateLimitPolicy global, Class<?> module, Class<?> resourceClass,
                                                   Method method) {
        String where = describe(resourceClass, method);
        List<ResolvedLimit> limits = new ArrayList<>();
        if (global != null) {
            limits.add(new ResolvedLimit(global, Level.GLOBAL));
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

    /** The module limits declared on an {@code Application} subclass, validated. */
    public static List<RateLimitPolicy> declaredOn(Class<?> type) {
        List<ResolvedLimit> limits = new ArrayList<>();
        addDeclared(limits, type, Level.MODULE, type.getSimpleName());
        ResolvedLimits checked = checked(type.getSimpleName(), limits);
        return checked.policies();
    }

    /** True when {@code element} carries {@code @RateLimit} (once or repeated). */
    public static boolean isAnnotated(AnnotatedElement element) {
        return element.isAnnotationPresent(RateLimit.class) || element.isAnnotationPresent(RateLimit.List.class);
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
            try {
                into.add(new ResolvedLimit(RateLimitPolicy.of(annotation), level));
            } catch (IllegalArgumentException e) {
                throw new InvalidRateLimitException("@RateLimit on " + onWhat(element, level, where) + ": "
                        + e.getMessage());
            }
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
                throw new InvalidRateLimitException("@RateLimit on " + where + ": name \"" + limit.policy().name()
                        + "\" is used by more than one limit covering the method (global, module, class and "
                        + "method limits together); each would spend from the same count twice");
            }
        }
        return new ResolvedLimits(where, limits);
    }
}
