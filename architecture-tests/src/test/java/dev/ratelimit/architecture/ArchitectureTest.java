package dev.ratelimit.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.PackageMatcher;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import dev.ratelimit.core.declaration.LimitResolver;
import dev.ratelimit.core.declaration.MethodDeclarations;
import dev.ratelimit.core.declaration.ResolvedLimits;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The structure of the library (three layers, one core), on the main classes of its modules as this
 * reactor built them, so that it cannot drift back:
 * <ul>
 *   <li>{@code internal} means internal to its module: a class may use the {@code internal} packages of its own
 *       module only;</li>
 *   <li>no package cycle;</li>
 *   <li>the core has no Jakarta or MicroProfile import;</li>
 *   <li>which limits cover a method is decided in one place, the core's resolver: no other class takes a method's
 *       declarations apart or makes its resolved limits;</li>
 *   <li>the Quarkus extension's run-time module (in the application) uses nothing of its deployment module (in the
 *       build only).</li>
 * </ul>
 *
 * <p>A class's <b>module</b> is the Maven module it is compiled in: the jar (or {@code target/classes}) it is
 * read from, whatever its package. So "another module's internal package" stays exact even where two modules
 * share a package prefix (the root package {@code dev.ratelimit} is ratelimit-cdi's, the parent of every other
 * module's packages), and a class moved into a look-alike package of another module is still caught. An
 * <b>internal package</b> is any package under {@code dev.ratelimit} with a segment named {@code internal}
 * ({@code dev.ratelimit.cdi.internal}, {@code dev.ratelimit.openapi.internal.index}, ...).
 */
class ArchitectureTest {

    /** The library modules (artifact ids); the import must find each, and nothing else, under {@code dev.ratelimit}. */
    static final List<String> MODULES = List.of("ratelimit-core", "ratelimit-cdi", "ratelimit-jaxrs",
            "ratelimit-openapi", "ratelimit-redis", "ratelimit-jcache", "ratelimit-micrometer", "ratelimit-opentelemetry",
            "ratelimit-quarkus", "ratelimit-quarkus-deployment");
    static final String CORE = "ratelimit-core";
    static final String QUARKUS_RUNTIME = "ratelimit-quarkus";
    static final String QUARKUS_DEPLOYMENT = "ratelimit-quarkus-deployment";
    static final String INTERNAL = "dev.ratelimit..internal..";

    /** Where a module's classes are read from: {@code <module>/target/classes/}, or its jar {@code <module>-<version>.jar}. */
    private static final Pattern ROOT = Pattern.compile("(?:/([\\w.-]+)/([\\w.-]+)/target/classes/|/([\\w.-]+?)-\\d[^/]*\\.jar!/)$");

    /** The folders of modules not named after their artifact: the Quarkus extension's, named the Quarkus way. */
    private static final Map<String, String> FOLDERS = Map.of("ratelimit-quarkus/runtime", "ratelimit-quarkus",
            "ratelimit-quarkus/deployment", "ratelimit-quarkus-deployment");

    /** Main classes only; the library's own tests (and this module's), and the example application, are not read. */
    static final JavaClasses LIBRARY = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(location -> !location.contains("dev/ratelimit/examples/"))
            .importPackages("dev.ratelimit");

    @Test
    void theRulesReadTheMainClassesOfEveryLibraryModule() {
        Map<String, TreeSet<String>> packagesByModule = new TreeMap<>();
        for (JavaClass javaClass : LIBRARY) {
            packagesByModule.computeIfAbsent(moduleOf(javaClass), m -> new TreeSet<>()).add(javaClass.getPackageName());
        }
        assertThat(packagesByModule).as("the modules whose classes were read, with their packages")
                .containsOnlyKeys(MODULES);
    }

    @Test
    void noModuleUsesTheInternalPackagesOfAnotherModule() {
        classes().should(useNoInternalClassOfAnotherModule())
                .because("internal means internal to its module: what two modules share is an API of its own")
                .check(LIBRARY);
    }

    @Test
    void noPackageCycles() {
        slices().assignedFrom(packagesOfTheLibrary()).should().beFreeOfCycles()
                .because("the packages form layers: arrows point one way only")
                .check(LIBRARY);
    }

    @Test
    void theCoreImportsNoJakartaOrMicroProfileType() {
        noClasses().that(areIn(CORE))
                .should().dependOnClassesThat().resideInAnyPackage("jakarta..", "org.eclipse.microprofile..")
                .because("the engine is plain Java: ratelimit-core compiles with no Jakarta or MicroProfile API")
                .check(LIBRARY);
    }

    @Test
    void onlyTheCoresResolverDecidesWhichLimitsCoverAMethod() {
        noClasses().that().doNotHaveFullyQualifiedName(LimitResolver.class.getName())
                .should().callConstructor(ResolvedLimits.class, String.class, MethodDeclarations.Kind.class, List.class,
                        List.class)
                .orShould().callMethod(MethodDeclarations.class, "module")
                .orShould().callMethod(MethodDeclarations.class, "classLevel")
                .orShould().callMethod(MethodDeclarations.class, "methodLevel")
                .because("the order of a method's limits and the module rule (module limits only where the class and "
                        + "the method declare none) are decided once, by LimitResolver, for every runtime, the Quarkus "
                        + "build and the OpenAPI document: a reader hands a method's declarations over whole, and "
                        + "everything else takes the limits the resolver made")
                .check(LIBRARY);
    }

    @Test
    void theQuarkusExtensionsRuntimeModuleUsesNothingOfItsDeploymentModule() {
        noClasses().that(areIn(QUARKUS_RUNTIME))
                .should().dependOnClassesThat(areInModule(QUARKUS_DEPLOYMENT))
                .because("the deployment module runs in the build only; the application has the run-time module alone, "
                        + "and what the build hands over it records")
                .check(LIBRARY);
    }

    // ---------------------------------------------------------------- what a module is

    /** The library module {@code javaClass} is compiled in, from where it was read; fails for a class of no known module. */
    static String moduleOf(JavaClass javaClass) {
        String root = rootOf(javaClass);
        Matcher matcher = ROOT.matcher(root);
        String module = !matcher.find() ? null
                : matcher.group(2) != null ? FOLDERS.getOrDefault(matcher.group(1) + "/" + matcher.group(2), matcher.group(2))
                : matcher.group(3);
        if (module == null || !MODULES.contains(module)) {
            throw new AssertionError(javaClass.getName() + " was read from " + root + ", which is no library module "
                    + MODULES + ": a new library module belongs in ArchitectureTest.MODULES and in this module's pom");
        }
        return module;
    }

    /** The jar or class folder {@code javaClass} was read from (its URI, without the class file's own path). */
    private static String rootOf(JavaClass javaClass) {
        String uri = javaClass.getSource()
                .orElseThrow(() -> new AssertionError("no class file for " + javaClass.getName()))
                .getUri().toString();
        String file = javaClass.getName().replace('.', '/') + ".class";
        if (!uri.endsWith(file)) {
            throw new AssertionError("the class file of " + javaClass.getName() + " is not where its name says: " + uri);
        }
        return uri.substring(0, uri.length() - file.length());
    }

    private static DescribedPredicate<JavaClass> areIn(String module) {
        return DescribedPredicate.describe("are in " + module, javaClass -> moduleOf(javaClass).equals(module));
    }

    /** {@link #areIn}, for any class: one outside the library (the JDK's, a dependency's) is in none of its modules. */
    private static DescribedPredicate<JavaClass> areInModule(String module) {
        return DescribedPredicate.describe("are in " + module, javaClass -> {
            JavaClass type = javaClass.getBaseComponentType();
            return type.getPackageName().startsWith("dev.ratelimit") && type.getSource().isPresent()
                    && moduleOf(type).equals(module);
        });
    }

    private static ArchCondition<JavaClass> useNoInternalClassOfAnotherModule() {
        PackageMatcher internal = PackageMatcher.of(INTERNAL);
        return new ArchCondition<>("use no class of another module's internal packages (" + INTERNAL + ")") {
            @Override
            public void check(JavaClass origin, ConditionEvents events) {
                String originModule = moduleOf(origin);
                for (Dependency dependency : origin.getDirectDependenciesFromSelf()) {
                    JavaClass target = dependency.getTargetClass().getBaseComponentType();
                    if (!internal.matches(target.getPackageName())) {
                        continue;
                    }
                    String targetModule = target.getSource().isPresent() ? moduleOf(target) : "an unknown module";
                    if (!targetModule.equals(originModule)) {
                        events.add(SimpleConditionEvent.violated(dependency, originModule + " -> " + targetModule
                                + ": " + dependency.getDescription()));
                    }
                }
            }
        };
    }

    /** One slice per package of the library (the root package {@code dev.ratelimit} included). */
    private static SliceAssignment packagesOfTheLibrary() {
        return new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
                String name = javaClass.getPackageName();
                return name.equals("dev.ratelimit") || name.startsWith("dev.ratelimit.")
                        ? SliceIdentifier.of(name) : SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() {
                return "the packages of the library modules";
            }
        };
    }
}
