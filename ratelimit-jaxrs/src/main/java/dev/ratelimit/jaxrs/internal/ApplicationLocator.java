package dev.ratelimit.jaxrs.internal;

import dev.ratelimit.cdi.LimitReader;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.ws.rs.core.Application;
import jakarta.ws.rs.core.Configuration;
import java.lang.reflect.Method;

/**
 * Finds the user's {@code Application} subclass at deployment, portably (injecting
 * {@code @Context Application} breaks Quarkus builds). Jersey and Payara: unwrap
 * {@code Configuration.getApplication()}; Quarkus and Liberty: the CDI bean. Returns the class that
 * carries the module's {@code @RateLimit}, or null when there is none.
 */
public final class ApplicationLocator {

    private ApplicationLocator() {
    }

    public static Class<?> moduleClass(Configuration configuration) {
        Class<?> found = fromConfiguration(configuration);
        if (found == null) {
            found = fromCdi();
        }
        return found == null ? null : annotatedClass(found);
    }

    private static Class<?> fromConfiguration(Object configuration) {
        Object current = configuration;
        Class<?> found = null;
        for (int depth = 0; depth < 5 && current != null; depth++) {
            if (current instanceof Application && isUserClass(current.getClass())) {
                found = current.getClass();
            }
            current = invokeGetApplication(current);
        }
        return found;
    }

    private static Object invokeGetApplication(Object target) {
        try {
            Method getter = target.getClass().getMethod("getApplication");
            getter.setAccessible(true);
            Object next = getter.invoke(target);
            return next == target ? null : next;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private static Class<?> fromCdi() {
        try {
            BeanManager beans = CDI.current().getBeanManager();
            for (Bean<?> bean : beans.getBeans(Application.class, Any.Literal.INSTANCE)) {
                if (isUserClass(bean.getBeanClass())) {
                    return bean.getBeanClass();
                }
            }
        } catch (RuntimeException e) {
            // no CDI container, or the Application is not a bean here
        }
        return null;
    }

    private static boolean isUserClass(Class<?> type) {
        String name = type.getName();
        return Application.class.isAssignableFrom(type) && type != Application.class
                && !name.startsWith("org.glassfish.jersey.") && !name.startsWith("org.jboss.resteasy.")
                && !name.startsWith("io.quarkus.") && !name.startsWith("org.apache.cxf.");
    }

    /** The class itself or the superclass under a container's proxy that carries {@code @RateLimit}. */
    private static Class<?> annotatedClass(Class<?> type) {
        for (Class<?> c = type; c != null && c != Application.class; c = c.getSuperclass()) {
            if (LimitReader.isAnnotated(c)) {
                return c;
            }
        }
        return null;
    }
}
