package dev.ratelimit.quarkus.deployment;

import dev.ratelimit.quarkus.runtime.ResourceMethodLimits;
import io.quarkus.builder.item.SimpleBuildItem;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/**
 * The application's valid declarations, what the build took the CDI interceptor off, and (filled in while Quarkus
 * REST deploys its endpoints, by the extension's method scanner) every resource method with its limits, in the
 * order of their ids.
 */
final class LimitsBuildItem extends SimpleBuildItem {

    final Declarations declarations;
    /** Keys ({@link Declarations#key}) of the methods whose own binding was taken off. */
    final Set<String> unboundMethods;
    /** Classes whose class-level binding was taken off (and moved to their other business methods). */
    final Set<org.jboss.jandex.DotName> unboundClasses;
    private final List<ResourceMethodLimits> resourceMethods = Collections.synchronizedList(new ArrayList<>());

    LimitsBuildItem(Declarations declarations, Set<String> unboundMethods, Set<org.jboss.jandex.DotName> unboundClasses) {
        this.declarations = declarations;
        this.unboundMethods = unboundMethods;
        this.unboundClasses = unboundClasses;
    }

    /**
     * True when the CDI interceptor still limits some method of {@code c}: a business method covered by a limit that
     * the build did not take off (a bean method; a resource class's other methods; a resource method the build
     * could not recognise).
     */
    boolean hasInterceptedMethods(org.jboss.jandex.ClassInfo c) {
        boolean classBound = declarations.hasClassLimits(c.name()) && !unboundClasses.contains(c.name());
        for (org.jboss.jandex.MethodInfo m : c.methods()) {
            if (!Declarations.isBusinessMethod(m)) {
                continue;
            }
            boolean ownBound = declarations.hasMethodLimits(m) && !unboundMethods.contains(Declarations.key(m));
            boolean moved = unboundClasses.contains(c.name()) && !declarations.isResourceMethod(m);
            if (classBound || ownBound || moved) {
                return true;
            }
        }
        return false;
    }

    /** Adds a resource method as Quarkus REST deploys it; returns its id. */
    int add(java.util.function.IntFunction<ResourceMethodLimits> method) {
        synchronized (resourceMethods) {
            int id = resourceMethods.size();
            resourceMethods.add(method.apply(id));
            return id;
        }
    }

    /** Every resource method, by id; complete once Quarkus REST has deployed its endpoints. */
    List<ResourceMethodLimits> resourceMethods() {
        synchronized (resourceMethods) {
            return new ArrayList<>(resourceMethods);
        }
    }
}
