package dev.ratelimit.openapi.processor;

import dev.ratelimit.openapi.internal.index.IndexFile;
import dev.ratelimit.openapi.internal.index.IndexFormat;
import dev.ratelimit.openapi.internal.index.IndexedApplication;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.openapi.internal.index.IndexedMethod;
import dev.ratelimit.openapi.internal.index.PathTemplates;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.RoundEnvironment;
import javax.annotation.processing.SupportedAnnotationTypes;
import javax.annotation.processing.SupportedOptions;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.ElementFilter;
import javax.lang.model.util.Elements;
import javax.tools.Diagnostic;

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
 * <p>The work is split by job: the class walk ({@link ResourceWalker}), the limits read and checked by the
 * resolver every runtime uses ({@link LimitChecks}), and the index file ({@link IndexFiles}).
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

    /** Canonical names of the types this compilation compiles, collected over all rounds. */
    private final Set<String> compiled = new LinkedHashSet<>();

    @Override
    public SourceVersion getSupportedSourceVersion() {
        return SourceVersion.latestSupported();
    }

    @Override
    public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
        for (TypeElement type : ElementFilter.typesIn(round.getRootElements())) {
            collect(type);
        }
        if (round.processingOver()) {
            try {
                writeIndex();
            } catch (RuntimeException e) {
                // A bug here must not fail the application's build, nor hide: the application's start-up
                // check reports the limits that the index then lacks.
                processingEnv.getMessager().printMessage(Diagnostic.Kind.MANDATORY_WARNING, "ratelimit-openapi: could not "
                        + "write " + IndexFormat.LOCATION + ": " + e);
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
        Elements elements = processingEnv.getElementUtils();
        TypeElement application = elements.getTypeElement(APPLICATION);
        if (application == null) {
            return; // no Jakarta REST on this class path: nothing to index
        }
        AnnotationValues values = new AnnotationValues(elements);
        LimitChecks checks = new LimitChecks(values, elements, processingEnv.getMessager());
        ResourceWalker walker = new ResourceWalker(elements, processingEnv.getTypeUtils(), values, checks);
        IndexFiles files = new IndexFiles(processingEnv);
        List<TypeElement> candidates = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String name : compiled) {
            TypeElement type = elements.getTypeElement(name);
            if (type != null && seen.add(walker.binaryName(type))) {
                candidates.add(type);
            }
        }
        IndexFile previous = files.previous();
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
            if (walker.isConcreteClass(type) && walker.isSubtype(type, application) && !type.equals(application)) {
                String where = walker.describe(type);
                List<LimitDeclaration> module = checks.limitsOn(type, DeclaredOn.MODULE, where);
                checks.checkModule(module, type);
                applications.add(new IndexedApplication(walker.binaryName(type), walker.applicationPath(type), module));
            }
            if (compiled.contains(type.getQualifiedName().toString())) {
                walker.checkKeyedMethods(type);
            }
            String classPath = walker.isConcreteClass(type) ? walker.resourcePath(type) : null;
            if (classPath != null) {
                walker.index(type, PathTemplates.normalize(classPath), walker.binaryName(type), new ArrayDeque<>(), methods);
            }
        }
        if (previous == null && applications.isEmpty() && methods.isEmpty()) {
            return;
        }
        files.write(applications, methods);
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
}
