package dev.ratelimit.internal.cdi;

import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.internal.config.RateLimitSettings;
import dev.ratelimit.internal.resolve.LimitResolver;
import dev.ratelimit.internal.resolve.ResolvedLimits;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import java.lang.System.Logger.Level;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.StringJoiner;

/**
 * At start-up: reads and validates the configuration, resolves and validates every {@code @RateLimit}
 * on CDI beans (an invalid one fails the deployment, naming the method and the value), and logs one
 * line with the limited methods and the store in use.
 */
@ApplicationScoped
public class RateLimitStartup {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit");

    @Inject
    RateLimitRuntime runtime;

    @Inject
    BeanLimitGuard guard;

    void onStart(@Observes @Initialized(ApplicationScoped.class) Object event, BeanManager beans) {
        RateLimitSettings settings = runtime.settings();
        List<ResolvedLimits> limited = new ArrayList<>();
        Set<Class<?>> seen = new HashSet<>();
        for (Bean<?> bean : beans.getBeans(Object.class, Any.Literal.INSTANCE)) {
            Class<?> type = LimitResolver.userClass(bean.getBeanClass());
            if (!seen.add(type) || type.getName().startsWith("dev.ratelimit.internal.")) {
                continue;
            }
            boolean classLimited = LimitResolver.isAnnotated(type);
            for (Method method : type.getDeclaredMethods()) {
                if ((classLimited || LimitResolver.isAnnotated(method)) && isBusinessMethod(method)) {
                    limited.add(guard.resolve(type, method));
                }
            }
        }
        limited.sort(Comparator.comparing(ResolvedLimits::where));
        LOG.log(Level.INFO, summary(settings, limited));
    }

    private String summary(RateLimitSettings settings, List<ResolvedLimits> limited) {
        StringJoiner methods = new StringJoiner(", ");
        for (ResolvedLimits limits : limited) {
            StringJoiner policies = new StringJoiner("; ", " [", "]");
            for (RateLimitPolicy policy : limits.policies()) {
                policies.add(policy.toString());
            }
            methods.add(limits.where() + policies);
        }
        return "ratelimit: store " + runtime.store()
                + "; partition header " + (settings.partitionHeader() == null ? "(none)" : settings.partitionHeader())
                + "; global limit " + (settings.global() == null ? "(none)" : settings.global())
                + "; limited CDI methods (Jakarta REST resource methods are resolved by the filters as the "
                + "application deploys): " + (limited.isEmpty() ? "(none)" : methods);
    }

    private static boolean isBusinessMethod(Method method) {
        int modifiers = method.getModifiers();
        return !Modifier.isStatic(modifiers) && !Modifier.isPrivate(modifiers) && !method.isSynthetic()
                && !method.isBridge();
    }

}
