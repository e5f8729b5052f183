package dev.ratelimit.openapi.internal.check;

import dev.ratelimit.core.config.AdminSettings;
import dev.ratelimit.cdi.LimitReader;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.ext.Provider;
import java.lang.reflect.Method;

/**
 * Runs the {@link IndexCheck} on every resource method as the application deploys. Registers
 * nothing: it only reports. Tolerates the container's own resource classes, and being called twice
 * for one method.
 *
 * <p>Thread-safe: {@link #check} is written once, under this object's lock, and read without it.
 */
@Provider
public class IndexCheckFeature implements DynamicFeature {

    /** The application's index, read on the first resource method; one feature instance per application. */
    volatile IndexCheck check;

    @Override
    public void configure(ResourceInfo resourceInfo, FeatureContext context) {
        Class<?> resourceClass = resourceInfo.getResourceClass();
        Method method = resourceInfo.getResourceMethod();
        if (resourceClass == null || method == null || resourceClass.getName().startsWith("org.glassfish.jersey.")) {
            return;
        }
        Class<?> userClass = LimitReader.userClass(resourceClass);
        jakarta.ws.rs.Path path = userClass.getAnnotation(jakarta.ws.rs.Path.class);
        if (path != null && path.value().equals(AdminSettings.INTERNAL_PATH)) {
            return; // the library's admin resource: no limit counts it, and the filter documents it itself
        }
        IndexCheck c = check;
        if (c == null) {
            ClassLoader loader = userClass.getClassLoader();
            if (loader == null) {
                return;
            }
            synchronized (this) {
                c = check;
                if (c == null) {
                    c = IndexCheck.load(loader);
                    check = c;
                }
            }
        }
        c.check(userClass, method);
    }

}
