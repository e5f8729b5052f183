package dev.ratelimit.quarkus.runtime;

import dev.ratelimit.cdi.LimitedBeanClasses;
import dev.ratelimit.cdi.RateLimitRuntime;
import dev.ratelimit.core.binding.ScopedLimits;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.LimitResolver;
import dev.ratelimit.core.engine.RateLimitEngine;
import io.quarkus.arc.Arc;
import io.quarkus.runtime.annotations.Recorder;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Set;
import java.util.StringJoiner;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * Run-time init: binds every resource method's limits with the run-time configuration, before the HTTP server accepts
 * a request. The build read and checked each method's declarations; here the resolver every runtime uses resolves them
 * again with the run-time configuration's global limit ({@link LimitResolver}), and the engine's binder applies the
 * overrides, modes and plans. A value that only the run-time configuration makes invalid (a cost above a lowered
 * limit, a global limit whose name a method uses too) fails the start, naming the method and the value.
 */
@Recorder
public class RateLimitRecorder {

    private static final Logger LOG = Logger.getLogger("dev.ratelimit");

    /**
     * The classes that declare limits, as the build found them: the library's start-up inspects those only
     * ({@link LimitedBeanClasses}), instead of reflecting on every bean.
     */
    public Supplier<LimitedBeanClasses> limitedBeanClasses(List<String> names) {
        Set<String> known = Set.copyOf(names);
        LimitedBeanClasses classes = () -> known;
        return () -> classes;
    }

    /**
     * Binds every resource method, and hands the bindings to the {@link Bindings} bean.
     *
     * @param methods every resource method of the application; {@code methods.get(i).id() == i}
     */
    public void bind(List<ResourceMethodLimits> methods) {
        RateLimitRuntime runtime = Arc.container().instance(RateLimitRuntime.class).get();
        Arc.container().instance(Bindings.class).get().bound(runtime.engine(), bind(runtime, methods));
    }

    private static MethodBinding[] bind(RateLimitRuntime runtime, List<ResourceMethodLimits> methods) {
        RateLimitEngine engine = runtime.engine();
        RateLimitSettings settings = runtime.settings();
        LimitDeclaration global = LimitDeclaration.global(settings);
        MethodBinding none = MethodBinding.none(engine);
        MethodBinding[] bound = new MethodBinding[methods.size()];
        StringJoiner limited = new StringJoiner(", ");
        limited.setEmptyValue("(none)");
        for (ResourceMethodLimits method : methods) {
            MethodBinding binding = none;
            if (settings.enabled()) {
                ScopedLimits limits = engine.binder().bindResourceMethod(
                        LimitResolver.resolve(global, method.declarations()));
                if (limits.decides()) {
                    binding = new MethodBinding(engine, limits, method.intercepted() ? javaMethod(method) : null);
                    limited.add(method.declarations().where() + " " + limits.describe());
                }
            }
            bound[method.id()] = binding;
        }
        if (settings.enabled()) {
            LOG.infof("ratelimit-quarkus: limits of the resource methods, bound at start-up: %s", limited);
        }
        return bound;
    }

    /**
     * The Java method, for a resource method around which the CDI interceptor still runs: the request's ledger names
     * it, so that the interceptor leaves it to the filters (exactly once). Looked up once, here.
     */
    private static Method javaMethod(ResourceMethodLimits method) {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        try {
            Class<?>[] parameters = new Class<?>[method.parameterTypes().size()];
            for (int i = 0; i < parameters.length; i++) {
                parameters[i] = type(method.parameterTypes().get(i), loader);
            }
            return Class.forName(method.declaringClass(), false, loader).getDeclaredMethod(method.methodName(), parameters);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("ratelimit-quarkus: cannot find the resource method "
                    + method.declarations().where()
                    + " (" + method.declaringClass() + "." + method.methodName() + method.parameterTypes() + ")", e);
        }
    }

    private static Class<?> type(String name, ClassLoader loader) throws ClassNotFoundException {
        return switch (name) {
            case "boolean" -> boolean.class;
            case "byte" -> byte.class;
            case "char" -> char.class;
            case "short" -> short.class;
            case "int" -> int.class;
            case "long" -> long.class;
            case "float" -> float.class;
            case "double" -> double.class;
            default -> Class.forName(name, false, loader);
        };
    }
}
