package dev.ratelimit.quarkus.deployment;

import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.ResolvedLimits;
import dev.ratelimit.core.declaration.ResolvedLimits.Problem;
import dev.ratelimit.core.declaration.SharedNames;
import dev.ratelimit.quarkus.runtime.ResourceMethodLimits;
import io.quarkus.builder.item.SimpleBuildItem;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntFunction;
import org.jboss.jandex.ClassInfo;
import org.jboss.jandex.DotName;
import org.jboss.jandex.MethodInfo;

/**
 * The application's declarations, what the build took the CDI interceptor off, and what the resolver made of every
 * limited method: the bean methods' when the declarations are read, every resource method with its limits (in the
 * order of their ids) while Quarkus REST deploys its endpoints (the extension's method scanner), with what is wrong.
 *
 * <p>Thread-safe: what is added while Quarkus REST deploys is guarded by this item.
 *
 * <p>Not API: public for the extension's Dev UI package ({@code devui}) only.
 */
public final class LimitsBuildItem extends SimpleBuildItem {

    final Declarations declarations;
    /** Keys ({@link Declarations#key}) of the methods whose own binding was taken off. */
    final Set<String> unboundMethods;
    /** Classes whose class-level binding was taken off (and moved to their other business methods). */
    final Set<DotName> unboundClasses;
    /** Guarded by this: what is wrong, each problem once, in the order found. */
    private final Set<String> problems = new LinkedHashSet<>();
    /**
     * Guarded by this: the declarations a problem was reported for. A class's or the module's declaration covers many
     * methods, and would be reported once for each: only the first is listed.
     */
    private final Set<LimitDeclaration> reported = new HashSet<>();
    /** Guarded by this: every method resolved, for the checks across methods. */
    private final List<ResolvedLimits> resolved = new ArrayList<>();
    /** Guarded by this: every resource method, by id. */
    private final List<ResourceMethodLimits> resourceMethods = new ArrayList<>();

    LimitsBuildItem(Declarations declarations, Set<String> unboundMethods, Set<DotName> unboundClasses) {
        this.declarations = declarations;
        this.unboundMethods = unboundMethods;
        this.unboundClasses = unboundClasses;
    }

    /**
     * True when the CDI interceptor still limits some method of {@code c}: a business method covered by a limit that
     * the build did not take off (a bean method; a resource class's other methods; a resource method the build
     * could not recognise).
     */
    boolean hasInterceptedMethods(ClassInfo c) {
        boolean classBound = declarations.hasClassLimits(c) && !unboundClasses.contains(c.name());
        for (MethodInfo m : c.methods()) {
            if (!Declarations.isBusinessMethod(m)) {
                continue;
            }
            boolean ownBound = declarations.hasMethodLimits(m) && !unboundMethods.contains(Declarations.key(m));
            boolean moved = unboundClasses.contains(c.name())
                    && (!declarations.isResourceMethod(m) || declarations.hasKeyParameter(m));
            if (classBound || ownBound || moved) {
                return true;
            }
        }
        return false;
    }

    /** Notes what is wrong with declarations apart from any method (the module's). */
    synchronized void problems(List<Problem> found) {
        Set<LimitDeclaration> now = new HashSet<>();
        for (Problem problem : found) {
            if (problem.declaration() == null || !reported.contains(problem.declaration())) {
                problems.add(problem.message());
                if (problem.declaration() != null) {
                    now.add(problem.declaration());
                }
            }
        }
        reported.addAll(now);
    }

    /** Notes the limits of a method as the resolver made them. */
    synchronized void resolved(ResolvedLimits limits) {
        resolved.add(limits);
        problems(limits.problems());
    }

    /** Adds a resource method as Quarkus REST deploys it, with its limits as resolved; returns its id. */
    synchronized int add(IntFunction<ResourceMethodLimits> method, ResolvedLimits limits) {
        resolved(limits);
        int id = resourceMethods.size();
        resourceMethods.add(method.apply(id));
        return id;
    }

    /**
     * Every resource method, by id; complete once Quarkus REST has deployed its endpoints (a step that consumes
     * {@link ValidatedLimitsBuildItem} runs after that).
     */
    public synchronized List<ResourceMethodLimits> resourceMethods() {
        return new ArrayList<>(resourceMethods);
    }

    /**
     * Everything wrong, once Quarkus REST has deployed its endpoints: each method's problems, then the limits sharing
     * a name that disagree on their algorithm or {@code per} under {@code settings}.
     */
    synchronized List<String> problems(RateLimitSettings settings) {
        Set<String> all = new LinkedHashSet<>(problems);
        SharedNames shared = new SharedNames(settings);
        for (ResolvedLimits method : resolved) {
            all.addAll(shared.add(method));
        }
        return new ArrayList<>(all);
    }
}
