package dev.ratelimit.openapi.processor;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.openapi.internal.index.IndexFile;
import dev.ratelimit.openapi.internal.index.IndexFormat;
import dev.ratelimit.openapi.internal.index.IndexedApplication;
import dev.ratelimit.openapi.internal.index.IndexedLimit;
import dev.ratelimit.openapi.internal.index.IndexedMethod;
import dev.ratelimit.openapi.internal.index.PathTemplates;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.Filer;
import javax.annotation.processing.Messager;
import javax.annotation.processing.RoundEnvironment;
import javax.annotation.processing.SupportedAnnotationTypes;
import javax.annotation.processing.SupportedOptions;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.ExecutableType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.ElementFilter;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;
import javax.tools.Diagnostic;
import javax.tools.FileObject;
import javax.tools.StandardLocation;

/**
 * Writes {@value IndexFormat#LOCATION}: every Jakarta REST resource method of the compilation (root
 * resources, inherited and interface-declared methods, sub-resource locators followed to their
 * return type), its HTTP method and path template, and the {@code @RateLimit}s of its class and of
 * itself; and every {@code Application} subclass with its path and module limits. The OpenAPI
 * filter reads it to know an operation's limits without its Java method.
 *
 * <p>Enabling it is one line, because JDK 23 and later run no processor found on the class path
 * unless told to: {@code <maven.compiler.proc>full</maven.compiler.proc>} (javac {@code -proc:full}),
 * or {@code ratelimit-openapi} in {@code annotationProcessorPaths}.
 *
 * <p>A {@code @RateLimit} the runtime would reject (permitLimit &lt; 1, a bad name, one name twice
 * on one method) is a compile error here, with the message the deployment would fail with.
 *
 * <p>An incremental compilation (an IDE recompiling a few classes) indexes again, from their class
 * files, the classes of the previous index that it did not compile, as long as they still exist; so
 * a sub-resource recompiled alone is seen under its locator's path with its new limits.
 */
@SupportedAnnotationTypes("*")
@SupportedOptions(RateLimitIndexProcessor.VERBOSE_OPTION)
public final class RateLimitIndexProcessor extends AbstractProcessor {

    /** {@code -Aratelimit.index.verbose=true} prints a note with what was indexed. */
    public static final String VERBOSE_OPTION = "ratelimit.index.verbose";

    private static final String APPLICATION = "jakarta.ws.rs.core.Application";
    private static final String APPLICATION_PATH = "jakarta.ws.rs.ApplicationPath";
    private static final String PATH = "jakarta.ws.rs.Path";
    private static final String HTTP_METHOD = "jakarta.ws.rs.HttpMethod";
    private static final String JAXRS_PACKAGE = "jakarta.ws.rs";
    private static final String RATE_LIMIT = "dev.ratelimit.RateLimit";
    private static final String RATE_LIMIT_LIST = "dev.ratelimit.RateLimit.List";

    /** Canonical names of the types this compilation compiles, collected over all rounds. */
    private final Set<String> compiled = new LinkedHashSet<>();
    /** Errors already reported: a class limit covers many methods, a method may be reached through two locators. */
    private final Set<String> reported = new HashSet<>();
    private final Set<AnnotationMirror> reportedLimits = Collections.newSetFromMap(new IdentityHashMap<>());

    private Elements elements;
    private Types types;
    private Messager messager;

    @Override
    public SourceVersion getSupportedSourceVersion() {
        return SourceVersion.latestSupported();
    }

    @Override
    public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
        elements = processingEnv.getElementUtils();
        types = processingEnv.getTypeUtils();
        messager = processingEnv.getMessager();
        for (TypeElement type : ElementFilter.typesIn(round.getRootElements())) {
            collect(type);
        }
        if (round.processingOver()) {
            try {
                writeIndex();
            } catch (RuntimeException e) {
                // A bug here must not fail the application's build, nor hide: the application's start-up
                // check reports the limits that the index then lacks.
                messager.printMessage(Diagnostic.Kind.MANDATORY_WARNING, "ratelimit-openapi: could not write "
                        + IndexFormat.LOCATION + ": " + e);
            }
        }
        return false;
    }

    private void collect(TypeElement type) {
        compiled.add(type.getQualifiedName().toString());
        for (TypeElement nested : ElementFilter.typesIn(type.getEnclosedElements())) {
            collect(nested);
        }
    }

    private void writeIndex() {
        TypeElement application = elements.getTypeElement(APPLICATION);
        if (application == null) {
            return; // no Jakarta REST on this class path: nothing to index
        }
        List<TypeElement> candidates = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String name : compiled) {
            TypeElement type = elements.getTypeElement(name);
            if (type != null && seen.add(binaryName(type))) {
                candidates.add(type);
            }
        }
        IndexFile previous = read(existingIndex());
        if (previous != null) {
            // An incremental compilation: the classes it did not compile are read from their class files.
            for (String binary : previousClasses(previous)) {
                TypeElement type = seen.contains(binary) ? null : elements.getTypeElement(binary.replace('$', '.'));
                if (type != null && seen.add(binary)) {
                    candidates.add(type);
                }
            }
        }
        List<IndexedApplication> applications = new ArrayList<>();
        List<IndexedMethod> methods = new ArrayList<>();
        for (TypeElement type : candidates) {
            if (isConcreteClass(type) && isSubtype(type, application) && !type.equals(application)) {
                List<IndexedLimit> module = validated(limitsOn(type), describe(type));
                checkUniqueNames(describe(type), type, module, List.of());
                applications.add(new IndexedApplication(binaryName(type), applicationPath(type), module));
            }
            String classPath = isConcreteClass(type) ? resourcePath(type) : null;
            if (classPath != null) {
                index(type, PathTemplates.normalize(classPath), binaryName(type), new ArrayDeque<>(), methods);
            }
        }
        if (previous == null && applications.isEmpty() && methods.isEmpty()) {
            return;
        }
        write(applications, methods);
    }

    private static Set<String> previousClasses(IndexFile previous) {
        Set<String> names = new LinkedHashSet<>();
        for (IndexedApplication a : previous.applications()) {
            names.add(a.className());
        }
        for (IndexedMethod m : previous.methods()) {
            names.add(m.rootClass());
        }
        return names;
    }

    /** Indexes the resource methods of {@code type} below {@code basePath}, following sub-resource locators. */
    private void index(TypeElement type, String basePath, String root, Deque<String> locators,
                       List<IndexedMethod> into) {
        List<Limit> classLimits = limitsOn(type);
        for (ExecutableElement method : ElementFilter.methodsIn(elements.getAllMembers(type))) {
            if (!method.getModifiers().contains(Modifier.PUBLIC) || method.getModifiers().contains(Modifier.STATIC)
                    || ((TypeElement) method.getEnclosingElement()).getQualifiedName().contentEquals("java.lang.Object")) {
                continue;
            }
            ExecutableElement declaration = jaxrsDeclaration(type, method);
            if (declaration == null) {
                continue;
            }
            List<String> httpMethods = httpMethodsOf(declaration);
            String methodPath = stringValue(declaration, PATH);
            String key = methodKey(type, method);
            if (!httpMethods.isEmpty()) {
                List<Limit> own = limitsOn(method);
                if (own.isEmpty() && !declaration.equals(method)) {
                    own = limitsOn(declaration); // what runtimes that report the annotated declaration read
                }
                String where = describe(type, method);
                List<IndexedLimit> classPolicies = validated(classLimits, where);
                List<IndexedLimit> methodPolicies = validated(own, where);
                checkUniqueNames(where, method, classPolicies, methodPolicies);
                String path = PathTemplates.join(basePath, methodPath);
                for (String http : httpMethods) {
                    into.add(new IndexedMethod(root, http, path, key, classPolicies, methodPolicies));
                }
            } else if (methodPath != null && !locators.contains(key)) {
                TypeElement subResource = subResourceOf(type, method);
                if (subResource != null) {
                    locators.push(key);
                    index(subResource, PathTemplates.join(basePath, methodPath), root, locators, into);
                    locators.pop();
                }
            }
        }
    }

    /**
     * The method whose Jakarta REST annotations apply (JAX-RS 3.1, 3.6): the method itself when it
     * has any, else the first overridden method that has some, superclasses before interfaces.
     */
    private ExecutableElement jaxrsDeclaration(TypeElement type, ExecutableElement method) {
        if (hasJaxrsAnnotations(method)) {
            return method;
        }
        for (TypeElement supertype : supertypes(type)) {
            for (ExecutableElement candidate : ElementFilter.methodsIn(supertype.getEnclosedElements())) {
                if (candidate.getSimpleName().equals(method.getSimpleName()) && !candidate.equals(method)
                        && elements.overrides(method, candidate, type) && hasJaxrsAnnotations(candidate)) {
                    return candidate;
                }
            }
        }
        return null;
    }

    /** Superclasses first (nearest first), then interfaces breadth first. */
    private List<TypeElement> supertypes(TypeElement type) {
        List<TypeElement> classes = new ArrayList<>();
        for (TypeElement c = superclassOf(type); c != null; c = superclassOf(c)) {
            classes.add(c);
        }
        List<TypeElement> interfaces = new ArrayList<>();
        Deque<TypeElement> queue = new ArrayDeque<>();
        queue.add(type);
        queue.addAll(classes);
        Set<TypeElement> seen = new HashSet<>();
        while (!queue.isEmpty()) {
            for (TypeMirror i : queue.poll().getInterfaces()) {
                TypeElement element = (TypeElement) types.asElement(i);
                if (element != null && seen.add(element)) {
                    interfaces.add(element);
                    queue.add(element);
                }
            }
        }
        classes.addAll(interfaces);
        return classes;
    }

    private TypeElement superclassOf(TypeElement type) {
        TypeMirror superclass = type.getSuperclass();
        return superclass.getKind() == TypeKind.DECLARED ? (TypeElement) types.asElement(superclass) : null;
    }

    private boolean hasJaxrsAnnotations(ExecutableElement method) {
        for (AnnotationMirror a : method.getAnnotationMirrors()) {
            if (isJaxrs(a)) {
                return true;
            }
        }
        for (VariableElement parameter : method.getParameters()) {
            for (AnnotationMirror a : parameter.getAnnotationMirrors()) {
                if (isJaxrs(a)) {
                    return true;
                }
            }
        }
        return false;
    }

    private boolean isJaxrs(AnnotationMirror annotation) {
        TypeElement type = (TypeElement) annotation.getAnnotationType().asElement();
        String pkg = elements.getPackageOf(type).getQualifiedName().toString();
        return pkg.equals(JAXRS_PACKAGE) || pkg.startsWith(JAXRS_PACKAGE + ".") || httpMethodOf(type) != null;
    }

    private List<String> httpMethodsOf(ExecutableElement method) {
        List<String> methods = new ArrayList<>();
        for (AnnotationMirror a : method.getAnnotationMirrors()) {
            String http = httpMethodOf((TypeElement) a.getAnnotationType().asElement());
            if (http != null) {
                methods.add(http);
            }
        }
        return methods;
    }

    private String httpMethodOf(TypeElement annotationType) {
        return stringValue(annotationType, HTTP_METHOD);
    }

    /** A locator's return type (the {@code T} of {@code Class<T>}), seen as a member of the resource class. */
    private TypeElement subResourceOf(TypeElement type, ExecutableElement locator) {
        TypeMirror returned = ((ExecutableType) types.asMemberOf((DeclaredType) type.asType(), locator)).getReturnType();
        if (returned.getKind() == TypeKind.TYPEVAR) {
            returned = types.erasure(returned);
        }
        if (returned.getKind() != TypeKind.DECLARED) {
            return null;
        }
        DeclaredType declared = (DeclaredType) returned;
        TypeElement element = (TypeElement) declared.asElement();
        if (element.getQualifiedName().contentEquals("java.lang.Class") && declared.getTypeArguments().size() == 1) {
            TypeMirror argument = declared.getTypeArguments().get(0);
            element = argument.getKind() == TypeKind.DECLARED ? (TypeElement) types.asElement(argument) : null;
        }
        return element == null || element.getQualifiedName().contentEquals("java.lang.Object") ? null : element;
    }

    /**
     * The {@code @Path} of a root resource class: its own, or, when it has none, that of an abstract
     * superclass or interface it implements (as SmallRye OpenAPI and RESTEasy read it). A class
     * without either is no root resource. A concrete superclass's path is not inherited.
     */
    private String resourcePath(TypeElement type) {
        String own = stringValue(type, PATH);
        if (own != null) {
            return own;
        }
        for (TypeElement supertype : supertypes(type)) {
            if (supertype.getKind() == ElementKind.INTERFACE || supertype.getModifiers().contains(Modifier.ABSTRACT)) {
                String inherited = stringValue(supertype, PATH);
                if (inherited != null) {
                    return inherited;
                }
            }
        }
        return null;
    }

    private String applicationPath(TypeElement application) {
        String path = stringValue(application, APPLICATION_PATH);
        if (path == null) {
            path = stringValue(application, PATH);
        }
        return PathTemplates.normalize(path);
    }

    // ---- @RateLimit

    /** One {@code @RateLimit} as written: its values (defaults filled in) and where, for messages. */
    private record Limit(String name, int permitLimit, int windowSeconds, String scope, String algorithm, int cost,
                         Element on, AnnotationMirror mirror) {
    }

    /** The {@code @RateLimit}s directly on {@code element}, in declaration order (repeated ones sit in their container). */
    private List<Limit> limitsOn(Element element) {
        List<Limit> limits = new ArrayList<>();
        for (AnnotationMirror a : element.getAnnotationMirrors()) {
            String type = ((TypeElement) a.getAnnotationType().asElement()).getQualifiedName().toString();
            if (type.equals(RATE_LIMIT)) {
                limits.add(limit(element, a));
            } else if (type.equals(RATE_LIMIT_LIST)) {
                Object value = value(a, "value");
                if (value instanceof List<?> list) {
                    for (Object item : list) {
                        if (((AnnotationValue) item).getValue() instanceof AnnotationMirror m) {
                            limits.add(limit(element, m));
                        }
                    }
                }
            }
        }
        return limits;
    }

    /** Members read by name from the source's annotation: the class being compiled cannot be reflected on. */
    private Limit limit(Element on, AnnotationMirror a) {
        Object algorithm = value(a, "algorithm");
        Object cost = value(a, "cost");
        return new Limit((String) value(a, "name"), (Integer) value(a, "permitLimit"), (Integer) value(a, "windowSeconds"),
                enumConstant(value(a, "scope"), RateLimitScope.TRANSPORT.name()),
                enumConstant(algorithm, RateLimitAlgorithm.SLIDING_WINDOW.name()),
                cost instanceof Integer c ? c : 1, on, a);
    }

    private static String enumConstant(Object value, String absent) {
        if (value == null) {
            return absent;
        }
        return value instanceof VariableElement v ? v.getSimpleName().toString() : String.valueOf(value);
    }

    private Object value(AnnotationMirror annotation, String member) {
        for (var e : elements.getElementValuesWithDefaults(annotation).entrySet()) {
            if (e.getKey().getSimpleName().contentEquals(member)) {
                return e.getValue().getValue();
            }
        }
        return null;
    }

    /** The limits, each checked as the runtime checks it (cost included); an invalid one is a compile error and left out. */
    private List<IndexedLimit> validated(List<Limit> limits, String where) {
        List<IndexedLimit> valid = new ArrayList<>();
        for (Limit limit : limits) {
            try {
                RateLimitAlgorithm algorithm;
                try {
                    algorithm = RateLimitAlgorithm.valueOf(limit.algorithm());
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("algorithm " + limit.algorithm() + " is not one this version of "
                            + "ratelimit-openapi knows (" + java.util.Arrays.toString(RateLimitAlgorithm.values()) + ")");
                }
                valid.add(new IndexedLimit(new RateLimitPolicy(limit.name(), limit.permitLimit(), limit.windowSeconds(),
                        algorithm), limit.cost(), RateLimitScope.valueOf(limit.scope())));
            } catch (IllegalArgumentException e) {
                String on = limit.on() instanceof TypeElement t && !where.equals(t.getSimpleName().toString())
                        ? t.getSimpleName() + " (covering " + where + ")" : where;
                if (reportedLimits.add(limit.mirror())) {
                    messager.printMessage(Diagnostic.Kind.ERROR, "@RateLimit on " + on + ": " + e.getMessage(),
                            limit.on(), limit.mirror());
                }
            }
        }
        return valid;
    }

    private void checkUniqueNames(String where, Element method, List<IndexedLimit> classLimits,
                                  List<IndexedLimit> methodLimits) {
        Set<String> names = new HashSet<>();
        List<IndexedLimit> all = new ArrayList<>(classLimits);
        all.addAll(methodLimits);
        for (IndexedLimit limit : all) {
            if (!names.add(limit.policy().name())) {
                error("@RateLimit on " + where + ": name \"" + limit.policy().name() + "\" is used by more than one limit "
                        + "covering the method (global, module, class and method limits together); each would spend "
                        + "from the same count twice", method);
            }
        }
    }

    private void error(String message, Element element) {
        if (reported.add(message)) {
            messager.printMessage(Diagnostic.Kind.ERROR, message, element);
        }
    }

    // ---- names

    /** {@code TodoResource.create(NewTodo, UriInfo)}, as the runtime's messages name a method. */
    private String describe(TypeElement type, ExecutableElement method) {
        List<String> params = new ArrayList<>();
        for (VariableElement p : method.getParameters()) {
            TypeMirror erased = types.erasure(p.asType());
            params.add(simpleName(erased));
        }
        return type.getSimpleName() + "." + method.getSimpleName() + "(" + String.join(", ", params) + ")";
    }

    private String describe(TypeElement type) {
        return type.getSimpleName().toString();
    }

    private String simpleName(TypeMirror type) {
        if (type.getKind() == TypeKind.ARRAY) {
            return simpleName(((ArrayType) type).getComponentType()) + "[]";
        }
        if (type.getKind() == TypeKind.DECLARED) {
            return ((DeclaredType) type).asElement().getSimpleName().toString();
        }
        return type.toString();
    }

    private String methodKey(TypeElement type, ExecutableElement method) {
        List<String> params = new ArrayList<>();
        for (VariableElement p : method.getParameters()) {
            params.add(typeName(types.erasure(p.asType())));
        }
        return binaryName(type) + "#" + method.getSimpleName() + "(" + String.join(",", params) + ")";
    }

    /** As {@link Class#getTypeName()} writes it. */
    private String typeName(TypeMirror type) {
        return switch (type.getKind()) {
            case ARRAY -> typeName(((ArrayType) type).getComponentType()) + "[]";
            case DECLARED -> binaryName((TypeElement) ((DeclaredType) type).asElement());
            default -> type.toString();
        };
    }

    private String binaryName(TypeElement type) {
        return elements.getBinaryName(type).toString();
    }

    private String stringValue(Element element, String annotationType) {
        for (AnnotationMirror a : element.getAnnotationMirrors()) {
            if (((TypeElement) a.getAnnotationType().asElement()).getQualifiedName().contentEquals(annotationType)) {
                Object value = value(a, "value");
                return value == null ? null : value.toString();
            }
        }
        return null;
    }

    private boolean isConcreteClass(TypeElement type) {
        return (type.getKind() == ElementKind.CLASS || type.getKind() == ElementKind.RECORD)
                && !type.getModifiers().contains(Modifier.ABSTRACT);
    }

    private boolean isSubtype(TypeElement type, TypeElement of) {
        return types.isSubtype(types.erasure(type.asType()), types.erasure(of.asType()));
    }

    // ---- the file

    private FileObject existingIndex() {
        try {
            return processingEnv.getFiler().getResource(StandardLocation.CLASS_OUTPUT, "", IndexFormat.LOCATION);
        } catch (IOException | IllegalArgumentException e) {
            return null;
        }
    }

    private IndexFile read(FileObject file) {
        if (file == null) {
            return null;
        }
        try (Reader in = file.openReader(true)) {
            return IndexFormat.read(in, file.toUri().toString());
        } catch (IOException e) {
            return null; // none yet, or not one this version reads: rewritten whole
        }
    }

    private void write(List<IndexedApplication> applications, List<IndexedMethod> methods) {
        Filer filer = processingEnv.getFiler();
        try {
            FileObject file = filer.createResource(StandardLocation.CLASS_OUTPUT, "", IndexFormat.LOCATION);
            try (Writer out = file.openWriter()) {
                IndexFormat.write(out, applications, methods);
            }
        } catch (IOException e) {
            messager.printMessage(Diagnostic.Kind.MANDATORY_WARNING, "ratelimit-openapi: could not write "
                    + IndexFormat.LOCATION + ": " + e.getMessage());
            return;
        }
        if (Boolean.parseBoolean(processingEnv.getOptions().get(VERBOSE_OPTION))) {
            long limited = methods.stream().filter(m -> !m.methodLimits().isEmpty() || !m.classLimits().isEmpty()).count();
            messager.printMessage(Diagnostic.Kind.NOTE, "ratelimit-openapi: indexed " + methods.size()
                    + " resource methods (" + limited + " with their own @RateLimit) and " + applications.size()
                    + " Application subclasses in " + IndexFormat.LOCATION);
        }
    }
}
