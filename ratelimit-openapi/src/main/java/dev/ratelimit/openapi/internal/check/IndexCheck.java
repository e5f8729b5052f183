package dev.ratelimit.openapi.internal.check;

import dev.ratelimit.cdi.LimitReader;
import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.ResolvedLimits;
import dev.ratelimit.openapi.internal.index.IndexFormat;
import dev.ratelimit.openapi.internal.index.IndexedOperation;
import dev.ratelimit.openapi.internal.index.ResourceIndex;
import java.lang.System.Logger.Level;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;

/**
 * At deployment, compares each limited resource method with the index the OpenAPI filter reads, so
 * that a limit the document would not show is reported at start-up instead of silently missing: no
 * index at all (the processor did not run), a method missing from it (compiled without the
 * processor), or other limits in it than in the code (a stale index). One warning per method and
 * condition; nothing per request.
 *
 * <p>Thread-safe: the index and the module are immutable; {@link #reported} is a concurrent set.
 * Not cached statically: it references the application's classes, so it lives as long as the
 * feature of that application, and a redeployed application is not kept in memory.
 */
public final class IndexCheck {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit.openapi");
    /**
     * No configuration: the index holds what the code declares, so the check compares declarations only
     * (no global limit, no overrides; those are applied when the document is filtered).
     */
    private static final RateLimitSettings DECLARATIONS_ONLY = RateLimitSettings.of(Map.of());

    private final ResourceIndex index;
    private final Class<?> module;
    private final Set<String> reported = ConcurrentHashMap.newKeySet();

    IndexCheck(ResourceIndex index, Class<?> module) {
        this.index = index;
        this.module = module;
    }

    /** The check of the application whose classes {@code loader} loads: reads its index. */
    public static IndexCheck load(ClassLoader loader) {
        ResourceIndex index = ResourceIndex.load(loader);
        return new IndexCheck(index, moduleClass(index, loader));
    }

    private static Class<?> moduleClass(ResourceIndex index, ClassLoader loader) {
        if (index.applications().size() != 1) {
            return null;
        }
        try {
            return Class.forName(index.applications().get(0).className(), false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }

    /**
     * Checks one resource method; logs what does not match.
     *
     * @return the warning, or null when the index and the code agree (or the method has no declared limit)
     */
    public String check(Class<?> resourceClass, Method method) {
        ResolvedLimits declared;
        try {
            declared = LimitReader.forResourceMethod(DECLARATIONS_ONLY, module, resourceClass, method);
        } catch (InvalidRateLimitException e) {
            return null; // the deployment fails on it anyway, with this message
        }
        if (declared.isEmpty()) {
            return null;
        }
        List<IndexedOperation> indexed = find(resourceClass, method);
        String problem;
        String condition;
        if (index.isEmpty()) {
            condition = "no index";
            problem = "no " + IndexFormat.LOCATION + " on the class path, so the OpenAPI document shows no rate "
                    + "limits (" + declared.where() + " has " + describe(declared.limits()) + ", for one): "
                    + ENABLE_PROCESSOR;
        } else if (indexed.isEmpty()) {
            condition = "missing " + declared.where();
            problem = declared.where() + " has " + describe(declared.limits()) + " but is not in " + IndexFormat.LOCATION
                    + ", so the OpenAPI document will not show its limits; was its class compiled without the "
                    + "processor? " + ENABLE_PROCESSOR;
        } else if (!agrees(indexed, declared.limits())) {
            condition = "stale " + declared.where();
            problem = declared.where() + " has " + describe(declared.limits()) + " but " + IndexFormat.LOCATION + " says "
                    + describe(disagreeing(indexed, declared.limits()).limits())
                    + ", so the OpenAPI document shows other limits than the application "
                    + "enforces: the index is older than the code; rebuild the application";
        } else {
            return null;
        }
        if (reported.add(condition)) {
            LOG.log(Level.WARNING, "ratelimit-openapi: " + problem);
        }
        return problem;
    }

    /** The entries of the method, under the resource class or (sub-resource implementations) a supertype. */
    private List<IndexedOperation> find(Class<?> resourceClass, Method method) {
        for (Class<?> c = resourceClass; c != null && c != Object.class; c = c.getSuperclass()) {
            List<IndexedOperation> found = index.byJavaMethod(IndexFormat.methodKey(c, method));
            if (!found.isEmpty()) {
                return found;
            }
            for (Class<?> i : c.getInterfaces()) {
                found = index.byJavaMethod(IndexFormat.methodKey(i, method));
                if (!found.isEmpty()) {
                    return found;
                }
            }
        }
        return List.of();
    }

    /** Every member of every limit, and where it is declared (module, class, method), in order. */
    private static boolean agrees(List<IndexedOperation> indexed, List<LimitDeclaration> declared) {
        return disagreeing(indexed, declared) == null;
    }

    private static IndexedOperation disagreeing(List<IndexedOperation> indexed, List<LimitDeclaration> declared) {
        List<List<Object>> recorded = compared(declared);
        for (IndexedOperation op : indexed) {
            if (!compared(op.limits()).equals(recorded)) {
                return op;
            }
        }
        return null;
    }

    /**
     * What is compared of each limit: every member and its level, not how the reader named its place (a runtime
     * may report an interface's method where the compiler saw the class's).
     */
    private static List<List<Object>> compared(List<LimitDeclaration> limits) {
        List<List<Object>> compared = new ArrayList<>(limits.size());
        for (LimitDeclaration limit : limits) {
            compared.add(List.of(limit.members(), limit.declaredOn()));
        }
        return compared;
    }

    /** {@code ["burst" 5/1s, "hourly" 500/3600s PRINCIPAL, "reports" 10/60s cost 4]}: the members that are not defaults. */
    static String describe(List<LimitDeclaration> limits) {
        StringJoiner text = new StringJoiner(", ", "[", "]");
        for (LimitDeclaration limit : limits) {
            text.add(limit.describe());
        }
        return text.toString();
    }

    /** What a missing index means and the fix, in every message that reports one. */
    public static final String ENABLE_PROCESSOR = "the index is written by ratelimit-openapi's annotation processor when "
            + "the application compiles; on JDK 23 and later javac runs it only when told to: add "
            + "<maven.compiler.proc>full</maven.compiler.proc> to the pom's properties (javac -proc:full), or list "
            + "dev.ratelimit:ratelimit-openapi in the compiler plugin's annotationProcessorPaths; and after adding "
            + "ratelimit-openapi to a project built before, build once with mvn clean package: an incremental build "
            + "compiles no unchanged resource, and the processor then writes no index";
}
