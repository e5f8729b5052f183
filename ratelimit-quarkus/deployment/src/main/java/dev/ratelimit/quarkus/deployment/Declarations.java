package dev.ratelimit.quarkus.deployment;

import dev.ratelimit.RateLimit;
import dev.ratelimit.cdi.Level;
import dev.ratelimit.core.LimitRules;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.quarkus.runtime.LimitDeclaration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import org.jboss.jandex.AnnotationInstance;
import org.jboss.jandex.AnnotationValue;
import org.jboss.jandex.ClassInfo;
import org.jboss.jandex.DotName;
import org.jboss.jandex.IndexView;
import org.jboss.jandex.MethodInfo;
import org.jboss.jandex.Type;

/**
 * Every {@code @RateLimit} of the application, read from the Jandex index at build time (once or repeated: the
 * container {@code @RateLimit.List} expanded), with every member's default filled in, and validated with the rules
 * the library applies when it deploys elsewhere ({@link RateLimitPolicy}, {@link LimitRules}): a value out of range,
 * a cost above its limit, or a name used twice among the limits covering one method (module, or class and method)
 * is a problem naming the method and the value, and fails the build.
 *
 * <p>Also knows which methods are Jakarta REST resource methods (an HTTP method annotation, on the method or on the
 * method it implements), for the classes Quarkus REST serves: the extension's filters decide those, so the CDI
 * interceptor is taken off them.
 */
final class Declarations {

    static final DotName RATE_LIMIT = DotName.createSimple(RateLimit.class);
    static final DotName RATE_LIMIT_LIST = DotName.createSimple(RateLimit.List.class);

    /** The members this build reads: a value given to any other (a newer library's) must not pass unread. */
    private static final Set<String> MEMBERS = Set.of("permitLimit", "windowSeconds", "name", "scope", "algorithm", "cost",
            "maxWaitMillis", "per");

    private final IndexView index;
    private final Set<DotName> httpMethods;
    private final List<String> problems = new ArrayList<>();
    /** Declared on each class and method that carries any, in declaration order. */
    private final Map<DotName, List<LimitDeclaration>> onClasses = new LinkedHashMap<>();
    private final Map<String, List<LimitDeclaration>> onMethods = new LinkedHashMap<>();
    private final List<LimitDeclaration> module;
    private final String moduleClass;

    Declarations(IndexView index, Set<DotName> httpMethods, ClassInfo application) {
        this.index = index;
        this.httpMethods = httpMethods;
        Set<ClassInfo> classes = new LinkedHashSet<>();
        for (DotName name : List.of(RATE_LIMIT, RATE_LIMIT_LIST)) {
            for (AnnotationInstance a : index.getAnnotations(name)) {
                if (a.target() == null) {
                    continue; // nested in a container: read with it
                }
                switch (a.target().kind()) {
                    case CLASS -> classes.add(a.target().asClass());
                    case METHOD -> classes.add(a.target().asMethod().declaringClass());
                    default -> {
                    }
                }
            }
        }
        for (ClassInfo c : classes) {
            StringJoiner covered = new StringJoiner(", ", " (covering ", ")");
            covered.setEmptyValue("");
            for (MethodInfo m : c.methods()) {
                if (isBusinessMethod(m)) {
                    covered.add(describe(c, m));
                }
            }
            List<LimitDeclaration> classLimits = read(c.declaredAnnotations(), Level.CLASS, simpleName(c.name()) + covered);
            if (!classLimits.isEmpty()) {
                onClasses.put(c.name(), classLimits);
            }
            for (MethodInfo m : c.methods()) {
                List<LimitDeclaration> methodLimits = read(m.declaredAnnotations(), Level.METHOD, describe(c, m));
                if (!methodLimits.isEmpty()) {
                    onMethods.put(key(m), methodLimits);
                }
                if ((!classLimits.isEmpty() && isBusinessMethod(m)) || !methodLimits.isEmpty()) {
                    List<LimitDeclaration> covering = new ArrayList<>(classLimits);
                    covering.addAll(methodLimits);
                    checkNames(describe(c, m), covering);
                }
            }
        }
        if (application != null && (application.hasDeclaredAnnotation(RATE_LIMIT)
                || application.hasDeclaredAnnotation(RATE_LIMIT_LIST))) {
            moduleClass = simpleName(application.name());
            module = read(application.declaredAnnotations(), Level.MODULE, moduleClass);
            checkNames(moduleClass, module);
        } else {
            moduleClass = null;
            module = List.of();
        }
    }

    /** What is wrong, one line each; empty when every declaration is valid. */
    List<String> problems() {
        return problems;
    }

    List<LimitDeclaration> onClass(ClassInfo c) {
        return onClasses.getOrDefault(c.name(), List.of());
    }

    List<LimitDeclaration> onMethod(MethodInfo m) {
        return onMethods.getOrDefault(key(m), List.of());
    }

    /** The module's limits (the {@code Application} subclass'), which cover resource methods without limits of their own. */
    List<LimitDeclaration> module() {
        return module;
    }

    /** Every declaration, module, classes and methods. */
    List<LimitDeclaration> all() {
        List<LimitDeclaration> all = new ArrayList<>(module);
        onClasses.values().forEach(all::addAll);
        onMethods.values().forEach(all::addAll);
        return all;
    }

    /** Every class that declares a limit on itself or on a method. */
    Set<DotName> limitedClasses() {
        Set<DotName> all = new LinkedHashSet<>(onClasses.keySet());
        for (String method : onMethods.keySet()) {
            all.add(DotName.createSimple(method.substring(0, method.indexOf('#'))));
        }
        return all;
    }

    boolean hasClassLimits(DotName c) {
        return onClasses.containsKey(c);
    }

    /** The limits of {@code m} itself (declared on it), by its key. */
    boolean hasMethodLimits(MethodInfo m) {
        return onMethods.containsKey(key(m));
    }

    /**
     * True when {@code m} is a Jakarta REST resource method: it carries an HTTP method annotation, or implements or
     * overrides a method that does (Jakarta REST annotation inheritance).
     */
    boolean isResourceMethod(MethodInfo m) {
        if (hasHttpMethod(m)) {
            return true;
        }
        if (m.isConstructor() || m.isStaticInitializer() || java.lang.reflect.Modifier.isStatic(m.flags())) {
            return false;
        }
        Set<DotName> seen = new HashSet<>();
        List<DotName> todo = new ArrayList<>();
        addSupertypes(m.declaringClass(), todo);
        while (!todo.isEmpty()) {
            DotName name = todo.remove(todo.size() - 1);
            if (!seen.add(name)) {
                continue;
            }
            ClassInfo c = index.getClassByName(name);
            if (c == null) {
                continue;
            }
            MethodInfo inherited = c.method(m.name(), m.parameterTypes().toArray(new Type[0]));
            if (inherited != null && hasHttpMethod(inherited)) {
                return true;
            }
            addSupertypes(c, todo);
        }
        return false;
    }

    private static void addSupertypes(ClassInfo c, List<DotName> todo) {
        if (c.superName() != null) {
            todo.add(c.superName());
        }
        todo.addAll(c.interfaceNames());
    }

    private boolean hasHttpMethod(MethodInfo m) {
        for (AnnotationInstance a : m.declaredAnnotations()) {
            if (httpMethods.contains(a.name())) {
                return true;
            }
        }
        return false;
    }

    /** True for {@code @RateLimit} and its container. */
    static boolean isLimit(AnnotationInstance a) {
        return a.name().equals(RATE_LIMIT) || a.name().equals(RATE_LIMIT_LIST);
    }

    /** A method the CDI interceptor would run around: not static, not private, not a constructor, not synthetic. */
    static boolean isBusinessMethod(MethodInfo m) {
        int flags = m.flags();
        return !m.isConstructor() && !m.isStaticInitializer() && !java.lang.reflect.Modifier.isStatic(flags)
                && !java.lang.reflect.Modifier.isPrivate(flags) && !m.isSynthetic();
    }

    /** The declarations among {@code annotations}, in order; each problem recorded, naming {@code where}. */
    private List<LimitDeclaration> read(List<AnnotationInstance> annotations, Level level, String where) {
        List<LimitDeclaration> read = new ArrayList<>();
        for (AnnotationInstance a : annotations) {
            if (a.name().equals(RATE_LIMIT)) {
                add(read, a, level, where);
            } else if (a.name().equals(RATE_LIMIT_LIST)) {
                AnnotationValue nested = a.value();
                if (nested != null) {
                    for (AnnotationInstance n : nested.asNestedArray()) {
                        add(read, n, level, where);
                    }
                }
            }
        }
        return read;
    }

    private void add(List<LimitDeclaration> into, AnnotationInstance a, Level level, String where) {
        for (AnnotationValue v : a.values()) {
            if (!MEMBERS.contains(v.name())) {
                problems.add("@RateLimit on " + where + ": the member " + v.name() + " (" + v + ") is not supported by this "
                        + "version of ratelimit-quarkus, which reads " + MEMBERS);
            }
        }
        String name = a.valueWithDefault(index, "name").asString();
        int permitLimit = a.valueWithDefault(index, "permitLimit").asInt();
        int windowSeconds = a.valueWithDefault(index, "windowSeconds").asInt();
        int cost = a.valueWithDefault(index, "cost").asInt();
        RateLimitAlgorithm algorithm = RateLimitAlgorithm.valueOf(a.valueWithDefault(index, "algorithm").asEnum());
        RateLimitScope scope = RateLimitScope.valueOf(a.valueWithDefault(index, "scope").asEnum());
        RateLimitPer per = RateLimitPer.valueOf(a.valueWithDefault(index, "per").asEnum());
        long maxWaitMillis = a.valueWithDefault(index, "maxWaitMillis").asLong();
        try {
            new RateLimitPolicy(name, permitLimit, windowSeconds, algorithm);
        } catch (IllegalArgumentException e) {
            problems.add("@RateLimit on " + where + ": " + e.getMessage());
            return;
        }
        String costError = LimitRules.costError(cost, permitLimit);
        if (costError != null) {
            problems.add("@RateLimit on " + where + ": " + costError);
            return;
        }
        String waitError = LimitRules.maxWaitError(maxWaitMillis);
        if (waitError != null) {
            problems.add("@RateLimit on " + where + ": " + waitError);
            return;
        }
        into.add(new LimitDeclaration(name, permitLimit, windowSeconds, algorithm, cost, scope, level, maxWaitMillis, per));
    }

    /** The same name twice among the limits covering one method would spend from one count twice. */
    private void checkNames(String where, List<LimitDeclaration> covering) {
        Set<String> names = new HashSet<>();
        for (LimitDeclaration limit : covering) {
            if (!names.add(limit.name())) {
                problems.add("@RateLimit on " + where + ": " + LimitRules.duplicateName(limit.name()));
            }
        }
    }

    // ---------------------------------------------------------------- names

    /** {@code TodoResource.create(NewTodo, UriInfo)}: how the library's messages name a method. */
    static String describe(ClassInfo c, MethodInfo m) {
        StringJoiner params = new StringJoiner(", ", "(", ")");
        for (Type p : m.parameterTypes()) {
            params.add(simpleName(p));
        }
        return simpleName(c.name()) + "." + m.name() + params;
    }

    /** A method's identity in the index: {@code com.acme.TodoResource#create(com.acme.NewTodo,...)}. */
    static String key(MethodInfo m) {
        StringJoiner params = new StringJoiner(",", "(", ")");
        for (Type p : m.parameterTypes()) {
            params.add(p.name().toString());
        }
        return m.declaringClass().name() + "#" + m.name() + params;
    }

    static String simpleName(DotName name) {
        String s = name.toString();
        return s.substring(Math.max(s.lastIndexOf('.'), s.lastIndexOf('$')) + 1);
    }

    private static String simpleName(Type type) {
        return switch (type.kind()) {
            case ARRAY -> simpleName(type.asArrayType().elementType()) + "[]".repeat(type.asArrayType().dimensions());
            case PRIMITIVE -> type.asPrimitiveType().primitive().name().toLowerCase(java.util.Locale.ROOT);
            default -> simpleName(type.name());
        };
    }

    /** The name {@link Class#forName} takes for a parameter type: {@code long}, {@code java.util.List}, {@code [J}. */
    static String className(Type type) {
        return switch (type.kind()) {
            case PRIMITIVE -> type.asPrimitiveType().primitive().name().toLowerCase(java.util.Locale.ROOT);
            case ARRAY -> type.name().toString();
            default -> type.name().toString();
        };
    }
}
