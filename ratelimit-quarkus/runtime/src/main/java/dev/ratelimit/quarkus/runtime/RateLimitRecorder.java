package dev.ratelimit.quarkus.runtime;

import dev.ratelimit.cdi.Level;
import dev.ratelimit.cdi.LimitedBeanClasses;
import dev.ratelimit.cdi.RateLimitRuntime;
import dev.ratelimit.cdi.ResolvedLimit;
import dev.ratelimit.cdi.ResolvedLimits;
import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.LimitRules;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.engine.BoundLimits;
import dev.ratelimit.core.engine.LimitBinder;
import dev.ratelimit.core.engine.RateLimitEngine;
import io.quarkus.arc.Arc;
import io.quarkus.runtime.annotations.Recorder;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.StringJoiner;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * Run-time init: binds every resource method's limits, which the build found and validated, with the run-time
 * configuration (the global limit, overrides, modes, plans: the engine's {@link LimitBinder}), before the HTTP
 * server accepts a request. A value that only the run-time configuration makes invalid (a cost above a lowered
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

    /** @param methods every resource method of the application; {@code methods.get(i).id() == i} */
    public void bind(List<ResourceMethodLimits> methods) {
        RateLimitRuntime runtime = Arc.container().instance(RateLimitRuntime.class).get();
        RateLimitEngine engine = runtime.engine();
        RateLimitSettings settings = runtime.settings();
        MethodBinding[] bound = new MethodBinding[methods.size()];
        StringJoiner limited = new StringJoiner(", ");
        limited.setEmptyValue("(none)");
        for (ResourceMethodLimits method : methods) {
            MethodBinding binding = settings.enabled() ? bind(engine.binder(), settings, method) : MethodBinding.NONE;
            bound[method.id()] = binding;
            if (binding.decides) {
                limited.add(method.where() + " " + describe(binding));
            }
        }
        Bindings.set(engine, bound);
        if (settings.enabled()) {
            LOG.infof("ratelimit-quarkus: limits of the resource methods, bound at start-up: %s", limited);
        }
    }

    private static MethodBinding bind(LimitBinder binder, RateLimitSettings settings, ResourceMethodLimits method) {
        List<ResolvedLimit> limits = new ArrayList<>(method.declared().size() + 1);
        if (settings.global() != null) {
            limits.add(new ResolvedLimit(settings.global(), 1, settings.globalScope(), Level.GLOBAL));
        }
        for (LimitDeclaration d : method.declared()) {
            limits.add(new ResolvedLimit(new RateLimitPolicy(d.name(), d.permitLimit(), d.windowSeconds(), d.algorithm()),
                    d.cost(), d.scope(), d.level(), d.maxWaitMillis(), d.per())); // one that may wait fails here
        }
        Set<String> names = new HashSet<>();
        for (ResolvedLimit limit : limits) {
            if (!names.add(limit.policy().name())) {
                throw new InvalidRateLimitException("@RateLimit on " + method.where() + ": "
                        + LimitRules.duplicateName(limit.policy().name()));
            }
        }
        ResolvedLimits resolved = new ResolvedLimits(method.where(), limits);
        // knowing the scope: with live values (SPEC 19) the global limit in force joins the limits of its scope
        BoundLimits transport = binder.bindResourceMethod(method.where(), resolved.declared(RateLimitScope.TRANSPORT),
                RateLimitScope.TRANSPORT);
        BoundLimits principal = binder.bindResourceMethod(method.where(), resolved.declared(RateLimitScope.PRINCIPAL),
                RateLimitScope.PRINCIPAL);
        MethodBinding binding = new MethodBinding(transport, principal, method.intercepted() ? javaMethod(method) : null);
        return binding.decides ? binding : MethodBinding.NONE;
    }

    private static String describe(MethodBinding binding) {
        if (binding.principal.isEmpty()) {
            return binding.transport.describe();
        }
        if (binding.transport.isEmpty()) {
            return "PRINCIPAL " + binding.principal.describe();
        }
        return "TRANSPORT " + binding.transport.describe() + ", PRINCIPAL " + binding.principal.describe();
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
            throw new IllegalStateException("ratelimit-quarkus: cannot find the resource method " + method.where()
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
