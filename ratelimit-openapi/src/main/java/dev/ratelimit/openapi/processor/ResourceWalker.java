package dev.ratelimit.openapi.processor;

import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.KeyParameter;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.MethodDeclarations;
import dev.ratelimit.openapi.internal.index.IndexedMethod;
import dev.ratelimit.openapi.internal.index.PathTemplates;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.lang.model.element.AnnotationMirror;
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

/**
 * The class walk: the Jakarta REST resource methods of a class as the runtimes see them (root resources,
 * inherited and interface-declared methods, sub-resource locators followed to their return type), each with its
 * HTTP methods, path template and the {@code @RateLimit}s of its class and of itself, read and checked by
 * {@link LimitChecks}; and the names messages give classes and methods.
 */
final class ResourceWalker {

    private static final String APPLICATION_PATH = "jakarta.ws.rs.ApplicationPath";
    private static final String PATH = "jakarta.ws.rs.Path";
    private static final String HTTP_METHOD = "jakarta.ws.rs.HttpMethod";
    private static final String JAXRS_PACKAGE = "jakarta.ws.rs";

    private final Elements elements;
    private final Types types;
    private final AnnotationValues values;
    private final LimitChecks checks;

    ResourceWalker(Elements elements, Types types, AnnotationValues values, LimitChecks checks) {
        this.elements = elements;
        this.types = types;
        this.values = values;
        this.checks = checks;
    }

    /** Indexes the resource methods of {@code type} below {@code basePath}, following sub-resource locators. */
    void index(TypeElement type, String basePath, String root, Deque<String> locators,
                       List<IndexedMethod> into) {
        List<LimitDeclaration> classLimits = checks.limitsOn(type, DeclaredOn.CLASS, describe(type));
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
            String methodPath = values.stringValue(declaration, PATH);
            String key = methodKey(type, method);
            if (!httpMethods.isEmpty()) {
                String where = describe(type, method);
                List<LimitDeclaration> own = checks.limitsOn(method, DeclaredOn.METHOD, where);
                if (own.isEmpty() && !declaration.equals(method)) {
                    // what runtimes that report the annotated declaration read
                    own = checks.limitsOn(declaration, DeclaredOn.METHOD, where);
                }
                List<KeyParameter> keys = checks.keysOf(method);
                checks.check(MethodDeclarations.resourceMethod(where, List.of(), classLimits, own).withKeys(keys, true),
                        method);
                String path = PathTemplates.join(basePath, methodPath);
                for (String http : httpMethods) {
                    into.add(new IndexedMethod(root, http, path, key, where, classLimits, own, keys));
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
        return values.stringValue(annotationType, HTTP_METHOD);
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
    String resourcePath(TypeElement type) {
        String own = values.stringValue(type, PATH);
        if (own != null) {
            return own;
        }
        for (TypeElement supertype : supertypes(type)) {
            if (supertype.getKind() == ElementKind.INTERFACE || supertype.getModifiers().contains(Modifier.ABSTRACT)) {
                String inherited = values.stringValue(supertype, PATH);
                if (inherited != null) {
                    return inherited;
                }
            }
        }
        return null;
    }

    String applicationPath(TypeElement application) {
        String path = values.stringValue(application, APPLICATION_PATH);
        if (path == null) {
            path = values.stringValue(application, PATH);
        }
        return PathTemplates.normalize(path);
    }

    /**
     * Checks the methods of {@code type} that are not resource methods and carry a {@code @RateLimitKey} parameter, as
     * the CDI interceptor would bind them (its class's and its own limits).
     */
    void checkKeyedMethods(TypeElement type) {
        for (ExecutableElement method : ElementFilter.methodsIn(type.getEnclosedElements())) {
            List<KeyParameter> keys = checks.keysOf(method);
            if (keys.isEmpty() || !httpMethodsOf(method).isEmpty()
                    || (jaxrsDeclaration(type, method) != null && !httpMethodsOf(jaxrsDeclaration(type, method)).isEmpty())) {
                continue; // a resource method: checked as one when its class is indexed
            }
            String where = describe(type, method);
            checks.check(MethodDeclarations.beanMethod(where, checks.limitsOn(type, DeclaredOn.CLASS, describe(type)),
                    checks.limitsOn(method, DeclaredOn.METHOD, where)).withKeys(keys, true), method);
        }
    }

    /** {@code TodoResource.create(NewTodo, UriInfo)}, as the runtime's messages name a method. */
    private String describe(TypeElement type, ExecutableElement method) {
        List<String> params = new ArrayList<>();
        for (VariableElement p : method.getParameters()) {
            TypeMirror erased = types.erasure(p.asType());
            params.add(simpleName(erased));
        }
        return type.getSimpleName() + "." + method.getSimpleName() + "(" + String.join(", ", params) + ")";
    }

    String describe(TypeElement type) {
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

    String binaryName(TypeElement type) {
        return elements.getBinaryName(type).toString();
    }

    boolean isConcreteClass(TypeElement type) {
        return (type.getKind() == ElementKind.CLASS || type.getKind() == ElementKind.RECORD)
                && !type.getModifiers().contains(Modifier.ABSTRACT);
    }

    boolean isSubtype(TypeElement type, TypeElement of) {
        return types.isSubtype(types.erasure(type.asType()), types.erasure(of.asType()));
    }

}
