package dev.ratelimit.cdi.internal;

import dev.ratelimit.cdi.LimitReader;
import dev.ratelimit.cdi.LimitedBeanClasses;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.engine.RateLimitEngine;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import java.lang.System.Logger.Level;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * At start-up: reads and validates the configuration, binds and validates every {@code @RateLimit} on CDI
 * beans (an invalid one fails the deployment, naming the method and the value), logs one line with the
 * store, the settings, the plans and the limited methods with their effective values, and warns about
 * configuration keys that name nothing.
 */
@ApplicationScoped
public class RateLimitStartup {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit");
    /** Present when ratelimit-jaxrs is: then resource methods are bound as Jakarta REST deploys. */
    private static final String JAXRS_FEATURE = "dev.ratelimit.jaxrs.RateLimitFeature";

    @Inject
    DefaultRateLimitRuntime runtime;

    @Inject
    BeanLimits beans;

    /** An integration's list of the classes that declare limits, when there is one: only those are inspected. */
    @Inject
    Instance<LimitedBeanClasses> limitedBeanClasses;

    void onStart(@Observes @Initialized(ApplicationScoped.class) Object event, BeanManager beanManager) {
        try {
            start(beanManager);
        } catch (RuntimeException e) {
            throw StartupFailures.logged(e);
        }
    }

    private void start(BeanManager beanManager) {
        RateLimitEngine engine = runtime.engine();
        RateLimitSettings settings = runtime.settings();
        Map<String, BoundLimits> limited = new TreeMap<>();
        Set<Class<?>> seen = new HashSet<>();
        Set<String> known = limitedBeanClasses.isResolvable() ? limitedBeanClasses.get().names() : null;
        for (Bean<?> bean : beanManager.getBeans(Object.class, Any.Literal.INSTANCE)) {
            Class<?> type = LimitReader.userClass(bean.getBeanClass());
            if (!seen.add(type) || type.getName().startsWith("dev.ratelimit.cdi.")
                    || (known != null && !known.contains(type.getName()))) {
                continue; // reflecting on a class is what start-up time goes to: only those that can declare limits
            }
            boolean classLimited = LimitReader.isAnnotated(type);
            for (Method method : type.getDeclaredMethods()) {
                if ((classLimited || LimitReader.isAnnotated(method)) && isBusinessMethod(method)) {
                    BoundLimits bound = beans.bind(type, method).limits();
                    limited.put(bound.where(), bound);
                } else if (isBusinessMethod(method) && LimitReader.hasKeyParameter(method)) {
                    LimitReader.forBeanMethod(type, method); // a key that no limit counts by: fails, naming the method
                }
            }
        }
        LOG.log(Level.INFO, summary(engine, settings, limited));
        if (settings.manualClock()) {
            LOG.log(Level.WARNING, "ratelimit: " + RateLimitSettings.TEST_MANUAL_CLOCK + "=true: limits count on a "
                    + "manual clock that only tests move; never set it in production");
        }
        runtime.checkConfiguration(OptionalClasses.present(JAXRS_FEATURE));
    }

    private static String summary(RateLimitEngine engine, RateLimitSettings settings, Map<String, BoundLimits> limited) {
        if (!settings.enabled()) {
            return "ratelimit: disabled (" + RateLimitSettings.ENABLED + "=false): nothing is decided, counted or "
                    + "written; methods run as if no @RateLimit existed";
        }
        StringJoiner methods = new StringJoiner(", ");
        methods.setEmptyValue("(none)");
        limited.forEach((where, bound) -> methods.add(where + " " + bound.describe()));
        return "ratelimit: " + engine.binder().summary()
                + "; global limit " + (settings.global() == null ? "(none)"
                        : engine.binder().describe(List.of(LimitDeclaration.global(settings)))
                                + " " + settings.globalScope())
                + "; limited CDI methods (Jakarta REST resource methods are bound as the application deploys): "
                + methods;
    }

    private static boolean isBusinessMethod(Method method) {
        int modifiers = method.getModifiers();
        return !Modifier.isStatic(modifiers) && !Modifier.isPrivate(modifiers) && !method.isSynthetic()
                && !method.isBridge();
    }
}
