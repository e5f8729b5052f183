package dev.ratelimit.cdi;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitKey;
import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.KeyParameter;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.LimitResolver;
import dev.ratelimit.core.declaration.MethodDeclarations;
import dev.ratelimit.core.declaration.ResolvedLimits;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * Reads {@code @RateLimit} declarations by reflection, for {@link LimitResolver} to decide which cover a method
 * (the module's, the class's, the method's own), and the method's {@code @RateLimitKey} parameters. Only translates:
 * every member of each annotation is handed over by name. Called at deployment only: it reflects.
 */
public final class LimitReader {

    /** The members of {@code @RateLimit}: read from each annotation by name. */
    private static final Method[] MEMBERS = RateLimit.class.getDeclaredMethods();

    private LimitReader() {
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
        return forResourceMethod(settings, module, resourceClass, method, true);
    }

    /**
     * The limits of a Jakarta REST resource method.
     *
     * @param interceptable false when the CDI interceptor cannot reach the method (its class is not a CDI bean): a
     *                      limit per argument then fails
     * @throws InvalidRateLimitException naming the method and the value
     */
    public static ResolvedLimits forResourceMethod(RateLimitSettings settings, Class<?> module, Class<?> resourceClass,
                                                   Method method, boolean interceptable) {
        return LimitResolver.resolve(LimitDeclaration.global(settings),
                resourceMethod(module, resourceClass, method).withKeys(keys(method), interceptable)).orThrow();
    }

    /**
     * The limits of a CDI bean method (or a MicroProfile Rest Client interface method): its class's, then its own.
     *
     * @throws InvalidRateLimitException naming the method and the value
     */
    public static ResolvedLimits forBeanMethod(Class<?> beanClass, Method method) {
        return LimitResolver.resolve(null, beanMethod(beanClass, method)).orThrow();
    }

    /** What a resource method's module, class and method declare. */
    public static MethodDeclarations resourceMethod(Class<?> module, Class<?> resourceClass, Method method) {
        return MethodDeclarations.resourceMethod(describe(resourceClass, method),
                module == null ? List.of() : declarations(module, DeclaredOn.MODULE, module.getSimpleName()),
                declarations(resourceClass, DeclaredOn.CLASS, resourceClass.getSimpleName()),
                declarations(method, DeclaredOn.METHOD, describe(resourceClass, method))).withKeys(keys(method), true);
    }

    /** What a bean method's class and the method declare. */
    public static MethodDeclarations beanMethod(Class<?> beanClass, Method method) {
        return MethodDeclarations.beanMethod(describe(beanClass, method),
                declarations(beanClass, DeclaredOn.CLASS, beanClass.getSimpleName()),
                declarations(method, DeclaredOn.METHOD, describe(beanClass, method))).withKeys(keys(method), true);
    }

    /** The method's {@code @RateLimitKey} parameters, in order. */
    public static List<KeyParameter> keys(Method method) {
        List<KeyParameter> keys = List.of();
        Parameter[] parameters = method.getParameters();
        for (int i = 0; i < parameters.length; i++) {
            RateLimitKey key = parameters[i].getAnnotation(RateLimitKey.class);
            if (key != null) {
                if (keys.isEmpty()) {
                    keys = new ArrayList<>(1);
                }
                Class<?> type = parameters[i].getType();
                keys.add(new KeyParameter(i, type.getName(), type.isEnum(), key.exact()));
            }
        }
        return keys;
    }

    /** True when a parameter of {@code method} carries {@code @RateLimitKey}. */
    public static boolean hasKeyParameter(Method method) {
        for (Parameter parameter : method.getParameters()) {
            if (parameter.isAnnotationPresent(RateLimitKey.class)) {
                return true;
            }
        }
        return false;
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

    /** The {@code @RateLimit}s directly on {@code element}, in declaration order, found on {@code place}. */
    private static List<LimitDeclaration> declarations(AnnotatedElement element, DeclaredOn level, String place) {
        RateLimit[] annotations = element.getAnnotationsByType(RateLimit.class);
        List<LimitDeclaration> declarations = new ArrayList<>(annotations.length);
        for (RateLimit annotation : annotations) {
            LimitDeclaration.Builder declaration = LimitDeclaration.builder(level, place);
            for (Method member : MEMBERS) {
                declaration.member(member.getName(), value(annotation, member));
            }
            declarations.add(declaration.build());
        }
        return declarations;
    }

    private static Object value(RateLimit annotation, Method member) {
        try {
            return member.invoke(annotation);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read " + member + " of " + annotation, e);
        }
    }
}
