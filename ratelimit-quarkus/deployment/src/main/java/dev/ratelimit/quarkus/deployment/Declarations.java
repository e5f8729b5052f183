package dev.ratelimit.quarkus.deployment;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitKey;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.KeyParameter;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.LimitResolver;
import dev.ratelimit.core.declaration.MethodDeclarations;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
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
 * The Jandex reader: every {@code @RateLimit} of the application, read from the index at build time (once or repeated:
 * the container {@code @RateLimit.List} expanded), into the declarations {@link LimitResolver} decides on. Only
 * translates: each member a declaration gives is handed over by name, the others keep the annotation's defaults.
 *
 * <p>Also knows which methods are Jakarta REST resource methods (an HTTP method annotation, on the method or on the
 * method it implements), for the classes Quarkus REST serves: the extension's filters decide those, so the CDI
 * interceptor is taken off them.
 */
final class Declarations {

    static final DotName RATE_LIMIT = DotName.createSimple(RateLimit.class);
    static final DotName RATE_LIMIT_LIST = DotName.createSimple(RateLimit.List.class);
    static final DotName RATE_LIMIT_KEY = DotName.createSimple(RateLimitKey.class);
    /** The HTTP method annotations of Jakarta REST; Quarkus REST's scanning adds those an application defines. */
    static final Set<DotName> HTTP_METHODS = Set.of(DotName.createSimple("jakarta.ws.rs.GET"),
            DotName.createSimple("jakarta.ws.rs.POST"), DotName.createSimple("jakarta.ws.rs.PUT"),
            DotName.createSimple("jakarta.ws.rs.DELETE"), DotName.createSimple("jakarta.ws.rs.PATCH"),
            DotName.createSimple("jakarta.ws.rs.HEAD"), DotName.createSimple("jakarta.ws.rs.OPTIONS"));

    private final IndexView index;
    private final Set<DotName> httpMethods;
    /** Every class that declares a limit on itself or on a method, in the order the index gives them. */
    private final Set<ClassInfo> limitedClasses = new LinkedHashSet<>();
    /** The {@code Application} subclass, when it declares the module's limits; else null. */
    private final ClassInfo module;

    /**
     * @param httpMethods the annotations that make a method a resource method
     * @param application the {@code Application} subclass, or null when there is none
     */
    Declarations(IndexView index, Set<DotName> httpMethods, ClassInfo application) {
        this.index = index;
        this.httpMethods = httpMethods;
        for (DotName name : List.of(RATE_LIMIT, RATE_LIMIT_LIST)) {
            for (AnnotationInstance a : index.getAnnotations(name)) {
                if (a.target() == null) {
                    continue; // nested in a container: read with it
                }
                switch (a.target().kind()) {
                    case CLASS -> limitedClasses.add(a.target().asClass());
                    case METHOD -> limitedClasses.add(a.target().asMethod().declaringClass());
                    default -> {
                    }
                }
            }
        }
        this.module = application != null && application.declaredAnnotations().stream().anyMatch(Declarations::isLimit)
                ? application : null;
    }

    /** The module's limits (the {@code Application} subclass'), which cover resource methods without limits of their own. */
    List<LimitDeclaration> module() {
        return module == null ? List.of() : read(module.declaredAnnotations(), DeclaredOn.MODULE, simpleName(module.name()));
    }

    /** The limits declared on {@code c} itself. */
    List<LimitDeclaration> onClass(ClassInfo c) {
        return read(c.declaredAnnotations(), DeclaredOn.CLASS, simpleName(c.name()));
    }

    /** The limits declared on {@code m} itself, found on the method {@code where} names. */
    List<LimitDeclaration> onMethod(MethodInfo m, String where) {
        return read(m.declaredAnnotations(), DeclaredOn.METHOD, where);
    }

    /**
     * What a resource method's module, class and method declare, as Quarkus REST serves it.
     *
     * @param endpoint the class that serves it
     * @param own      the method of that class
     * @param declared the method Quarkus REST found the resource method on (an interface's or a superclass's), whose
     *                 limits apply where {@code own} declares none
     */
    MethodDeclarations resourceMethod(ClassInfo endpoint, MethodInfo own, MethodInfo declared) {
        String where = describe(endpoint, own);
        List<LimitDeclaration> onMethod = onMethod(own, where);
        return MethodDeclarations.resourceMethod(where, module(), onClass(endpoint),
                onMethod.isEmpty() && declared != own ? onMethod(declared, where) : onMethod)
                .withKeys(keys(own), true); // Quarkus REST's resource classes are beans: the interceptor reaches them
    }

    /** What a bean method's class and the method declare. */
    MethodDeclarations beanMethod(ClassInfo c, MethodInfo m) {
        String where = describe(c, m);
        return MethodDeclarations.beanMethod(where, onClass(c), onMethod(m, where)).withKeys(keys(m), true);
    }

    /** The {@code @RateLimitKey} parameters of {@code m}, in order. */
    List<KeyParameter> keys(MethodInfo m) {
        List<KeyParameter> keys = new ArrayList<>(0);
        for (AnnotationInstance a : m.annotations(RATE_LIMIT_KEY)) {
            if (a.target() == null || a.target().kind() != org.jboss.jandex.AnnotationTarget.Kind.METHOD_PARAMETER) {
                continue;
            }
            int position = a.target().asMethodParameter().position();
            Type type = m.parameterType(position);
            AnnotationValue exact = a.value("exact");
            keys.add(new KeyParameter(position, className(type), isEnum(type), exact != null && exact.asBoolean()));
        }
        keys.sort(java.util.Comparator.comparingInt(KeyParameter::position));
        return keys;
    }

    /** True when {@code m} has a {@code @RateLimitKey} parameter. */
    boolean hasKeyParameter(MethodInfo m) {
        for (AnnotationInstance a : m.annotations(RATE_LIMIT_KEY)) {
            if (a.target() != null && a.target().kind() == org.jboss.jandex.AnnotationTarget.Kind.METHOD_PARAMETER) {
                return true;
            }
        }
        return false;
    }

    /** Every method with a {@code @RateLimitKey} parameter. */
    Set<MethodInfo> keyedMethods() {
        Set<MethodInfo> methods = new LinkedHashSet<>();
        for (AnnotationInstance a : index.getAnnotations(RATE_LIMIT_KEY)) {
            if (a.target() != null && a.target().kind() == org.jboss.jandex.AnnotationTarget.Kind.METHOD_PARAMETER) {
                methods.add(a.target().asMethodParameter().method());
            }
        }
        return methods;
    }

    /** True for an enum type: known from the index, else from the class (a JDK enum is not in the index). */
    private boolean isEnum(Type type) {
        if (type.kind() != Type.Kind.CLASS) {
            return false;
        }
        ClassInfo c = index.getClassByName(type.name());
        if (c != null) {
            return c.isEnum();
        }
        try {
            return Class.forName(type.name().toString(), false, Thread.currentThread().getContextClassLoader()).isEnum();
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Every declaration, module, classes and methods. */
    List<LimitDeclaration> all() {
        List<LimitDeclaration> all = new ArrayList<>(module());
        for (ClassInfo c : limitedClasses) {
            all.addAll(onClass(c));
            for (MethodInfo m : c.methods()) {
                all.addAll(onMethod(m, describe(c, m)));
            }
        }
        return all;
    }

    /** Every class that declares a limit on itself or on a method. */
    Set<ClassInfo> limitedClasses() {
        return limitedClasses;
    }

    boolean hasClassLimits(ClassInfo c) {
        return c.declaredAnnotations().stream().anyMatch(Declarations::isLimit);
    }

    /** True when {@code m} declares limits itself. */
    boolean hasMethodLimits(MethodInfo m) {
        return m.declaredAnnotations().stream().anyMatch(Declarations::isLimit);
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

    /** The declarations among {@code annotations}, in order, found on {@code level} and named {@code place}. */
    private static List<LimitDeclaration> read(List<AnnotationInstance> annotations, DeclaredOn level, String place) {
        List<LimitDeclaration> read = new ArrayList<>();
        for (AnnotationInstance a : annotations) {
            if (a.name().equals(RATE_LIMIT)) {
                read.add(declaration(a, level, place));
            } else if (a.name().equals(RATE_LIMIT_LIST) && a.value() != null) {
                for (AnnotationInstance nested : a.value().asNestedArray()) {
                    read.add(declaration(nested, level, place));
                }
            }
        }
        return read;
    }

    /** The members the declaration gives, by name: an enum constant comes as its name, a number as its box. */
    private static LimitDeclaration declaration(AnnotationInstance a, DeclaredOn level, String place) {
        LimitDeclaration.Builder declaration = LimitDeclaration.builder(level, place);
        for (AnnotationValue value : a.values()) {
            declaration.member(value.name(), value.value());
        }
        return declaration.build();
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
            case PRIMITIVE -> type.asPrimitiveType().primitive().name().toLowerCase(Locale.ROOT);
            default -> simpleName(type.name());
        };
    }

    /** The name {@link Class#forName} takes for a parameter type: {@code long}, {@code java.util.List}, {@code [J}. */
    static String className(Type type) {
        return type.kind() == Type.Kind.PRIMITIVE ? type.asPrimitiveType().primitive().name().toLowerCase(Locale.ROOT)
                : type.name().toString();
    }
}
