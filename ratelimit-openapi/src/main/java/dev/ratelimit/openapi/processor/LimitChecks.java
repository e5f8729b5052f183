package dev.ratelimit.openapi.processor;

import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.KeyParameter;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.LimitResolver;
import dev.ratelimit.core.declaration.MethodDeclarations;
import dev.ratelimit.core.declaration.ResolvedLimits.Problem;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.annotation.processing.Messager;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.tools.Diagnostic;

/**
 * The {@code javax.lang.model} reader: reads the {@code @RateLimit}s of the source into declarations (each member
 * the source gives, by name), and reports what {@link LimitResolver} finds wrong with them, with the messages the
 * deployment would fail with, as compile errors on the annotation. Each error is reported once, however many methods
 * a class limit covers.
 */
final class LimitChecks {

    private static final String RATE_LIMIT = "dev.ratelimit.RateLimit";
    private static final String RATE_LIMIT_LIST = "dev.ratelimit.RateLimit.List";
    private static final String RATE_LIMIT_KEY = "dev.ratelimit.RateLimitKey";

    private final AnnotationValues values;
    private final javax.lang.model.util.Elements elements;
    private final Messager messager;
    /** What each element declares, read once per place: a class limit covers many methods. */
    private final Map<List<Object>, List<LimitDeclaration>> read = new HashMap<>();
    /** Where each declaration was read: the element and the annotation an error points at. */
    private final Map<LimitDeclaration, Found> found = new IdentityHashMap<>();
    /** Errors already reported: a class limit covers many methods, a method may be reached through two locators. */
    private final Set<String> reported = new HashSet<>();
    private final Set<AnnotationMirror> reportedLimits = Collections.newSetFromMap(new IdentityHashMap<>());

    private record Found(Element on, AnnotationMirror mirror) {
    }

    LimitChecks(AnnotationValues values, javax.lang.model.util.Elements elements, Messager messager) {
        this.values = values;
        this.elements = elements;
        this.messager = messager;
    }

    /**
     * The {@code @RateLimit}s directly on {@code element}, in declaration order (repeated ones sit in their
     * container), found on {@code level} and named {@code place}.
     */
    List<LimitDeclaration> limitsOn(Element element, DeclaredOn level, String place) {
        return read.computeIfAbsent(List.of(element, level, place), k -> {
            List<LimitDeclaration> limits = new ArrayList<>();
            for (AnnotationMirror a : element.getAnnotationMirrors()) {
                String type = ((TypeElement) a.getAnnotationType().asElement()).getQualifiedName().toString();
                if (type.equals(RATE_LIMIT)) {
                    limits.add(declaration(element, a, level, place));
                } else if (type.equals(RATE_LIMIT_LIST) && values.value(a, "value") instanceof List<?> list) {
                    for (Object item : list) {
                        if (((AnnotationValue) item).getValue() instanceof AnnotationMirror m) {
                            limits.add(declaration(element, m, level, place));
                        }
                    }
                }
            }
            return limits;
        });
    }

    /** The members the source gives, by name (the classes being compiled cannot be reflected on); the rest default. */
    private LimitDeclaration declaration(Element on, AnnotationMirror a, DeclaredOn level, String place) {
        LimitDeclaration.Builder declaration = LimitDeclaration.builder(level, place);
        for (Map.Entry<? extends ExecutableElement, ? extends AnnotationValue> member : a.getElementValues().entrySet()) {
            Object value = member.getValue().getValue();
            declaration.member(member.getKey().getSimpleName().toString(),
                    value instanceof VariableElement constant ? constant.getSimpleName().toString() : value);
        }
        LimitDeclaration read = declaration.build();
        found.put(read, new Found(on, a));
        return read;
    }

    /** The {@code @RateLimitKey} parameters of {@code method}, in order, their types as {@link Class#getName()} writes them. */
    List<KeyParameter> keysOf(ExecutableElement method) {
        List<KeyParameter> keys = new ArrayList<>(0);
        List<? extends VariableElement> parameters = method.getParameters();
        for (int i = 0; i < parameters.size(); i++) {
            for (AnnotationMirror a : parameters.get(i).getAnnotationMirrors()) {
                if (((TypeElement) a.getAnnotationType().asElement()).getQualifiedName().contentEquals(RATE_LIMIT_KEY)) {
                    TypeMirror type = parameters.get(i).asType();
                    boolean isEnum = type.getKind() == TypeKind.DECLARED
                            && ((DeclaredType) type).asElement().getKind() == ElementKind.ENUM;
                    keys.add(new KeyParameter(i, className(type), isEnum, Boolean.TRUE.equals(values.value(a, "exact"))));
                }
            }
        }
        return keys;
    }

    /** {@code int}, {@code java.lang.String}, {@code a.b.Outer$Inner}: a type as {@link Class#getName()} writes it. */
    private String className(TypeMirror type) {
        if (type.getKind().isPrimitive()) {
            return type.getKind().name().toLowerCase(java.util.Locale.ROOT);
        }
        if (type.getKind() == TypeKind.DECLARED) {
            return elements.getBinaryName((TypeElement) ((DeclaredType) type).asElement()).toString();
        }
        return type.toString();
    }

    /** Reports what is wrong with the limits of a resource method, at {@code method} or at the declaration. */
    void check(MethodDeclarations declarations, Element method) {
        report(LimitResolver.resolve(null, declarations).problems(), method);
    }

    /** Reports what is wrong with the module's limits, at the {@code Application} subclass or at the declaration. */
    void checkModule(List<LimitDeclaration> module, Element application) {
        report(LimitResolver.check(module, MethodDeclarations.Kind.RESOURCE_METHOD), application);
    }

    private void report(List<Problem> problems, Element element) {
        for (Problem problem : problems) {
            Found where = problem.declaration() == null ? null : found.get(problem.declaration());
            if (where == null) {
                if (reported.add(problem.message())) {
                    messager.printMessage(Diagnostic.Kind.ERROR, problem.message(), element);
                }
            } else if (reportedLimits.add(where.mirror())) {
                messager.printMessage(Diagnostic.Kind.ERROR, problem.message(), where.on(), where.mirror());
            }
        }
    }
}
