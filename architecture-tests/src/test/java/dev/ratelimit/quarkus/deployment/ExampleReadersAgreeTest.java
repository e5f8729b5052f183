package dev.ratelimit.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import dev.ratelimit.cdi.LimitReader;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.LimitResolver;
import dev.ratelimit.core.declaration.ResolvedLimits;
import dev.ratelimit.examples.todos.TodosApplication;
import dev.ratelimit.openapi.internal.index.IndexFormat;
import dev.ratelimit.openapi.internal.index.IndexedOperation;
import dev.ratelimit.openapi.internal.index.ResourceIndex;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jboss.jandex.ClassInfo;
import org.jboss.jandex.DotName;
import org.jboss.jandex.Index;
import org.jboss.jandex.Indexer;
import org.jboss.jandex.MethodInfo;
import org.junit.jupiter.api.Test;

/**
 * Every reader of {@code @RateLimit} agrees with every other on every limited method of the example application
 * ({@code examples/todos-app}), the module's limit included: reflection (what ratelimit-cdi and ratelimit-jaxrs read
 * on Weld, Open Liberty and Payara), the Jandex index (what the Quarkus extension reads at build time), and the index
 * file that ratelimit-openapi's annotation processor wrote when the example compiled (what the OpenAPI document is
 * made from), each through the one resolver. Agreeing means the same limits in the same order, declared on the same
 * level and place, with every member equal, and no problem.
 *
 * <p>In the package of the extension's deployment module, whose Jandex reader is not public; the global limit is
 * configuration, which none of the readers sees, so it is left out.
 */
class ExampleReadersAgreeTest {

    private static final Class<?> MODULE = TodosApplication.class;
    private static final RateLimitSettings NO_CONFIGURATION = RateLimitSettings.of(Map.of());
    private static final Example EXAMPLE = Example.read();

    @Test
    void theReadersAgreeOnEveryResourceMethodOfTheExample() {
        Map<String, ResolvedLimits> reflected = new LinkedHashMap<>();
        Declarations jandex = EXAMPLE.jandexReader();
        for (Class<?> type : EXAMPLE.classes) {
            if (!isRootResource(type)) {
                continue;
            }
            for (Method method : type.getMethods()) {
                if (!isResourceMethod(method)) {
                    continue;
                }
                ResolvedLimits byReflection = LimitReader.forResourceMethod(NO_CONFIGURATION, MODULE, type, method);
                reflected.put(byReflection.where(), byReflection);

                ClassInfo c = EXAMPLE.index.getClassByName(type.getName());
                MethodInfo m = jandexMethod(c, method);
                assertThat(jandex.isResourceMethod(m)).as("Jandex: %s is a resource method", byReflection.where()).isTrue();
                assertThat(LimitResolver.resolve(null, jandex.resourceMethod(c, m, m)))
                        .as("Jandex reader against reflection on %s", byReflection.where()).isEqualTo(byReflection);

                List<IndexedOperation> indexed = EXAMPLE.openapi.byJavaMethod(IndexFormat.methodKey(type, method));
                assertThat(indexed).as("the processor's index of %s", byReflection.where()).isNotEmpty();
                for (IndexedOperation operation : indexed) {
                    assertThat(operation.resolved()).as("the processor's index against reflection on %s",
                            byReflection.where()).isEqualTo(byReflection);
                }
            }
        }
        assertThat(EXAMPLE.openapi.problems()).isEmpty();
        assertThat(EXAMPLE.openapi.operations()).extracting(op -> op.resolved().where())
                .containsExactlyInAnyOrderElementsOf(reflected.keySet());
        assertThat(names(reflected)).containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                entry("TodoResource.all()", List.of("default")),
                entry("TodoResource.one(long)", List.of("module")),
                entry("TodoResource.create(NewTodo, UriInfo)", List.of("burst", "hourly")),
                entry("TodoResource.delete(long)", List.of("delete")),
                entry("TodoResource.export()", List.of("module")),
                entry("TodoResource.report()", List.of("reports")),
                entry("TodoResource.importAll(List)", List.of("module")),
                entry("TodoResource.share(long)", List.of("module")),
                entry("PartnerInbox.receive(Todo)", List.of("inbox")),
                entry("LoginResource.login(String, String)", List.of("login-address", "login-account"))));
        assertThat(reflected.get("LoginResource.login(String, String)").key())
                .as("the username, by every reader: the resolved limits above are equal")
                .isEqualTo(new dev.ratelimit.core.declaration.KeyParameter(0, "java.lang.String", false, false));
        assertThat(reflected.get("TodoResource.one(long)").limits()).singleElement()
                .extracting(LimitDeclaration::declaredOn, LimitDeclaration::place, LimitDeclaration::permitLimit)
                .containsExactly(DeclaredOn.MODULE, "TodosApplication", 100);
    }

    @Test
    void theReflectionAndJandexReadersAgreeOnEveryLimitedBeanMethodOfTheExample() {
        Map<String, ResolvedLimits> reflected = new LinkedHashMap<>();
        Declarations jandex = EXAMPLE.jandexReader();
        for (Class<?> type : EXAMPLE.classes) {
            if (isRootResource(type) || !limited(type)) {
                continue;
            }
            for (Method method : type.getDeclaredMethods()) {
                if (Modifier.isStatic(method.getModifiers()) || Modifier.isPrivate(method.getModifiers())
                        || method.isSynthetic() || !(LimitReader.isAnnotated(type) || LimitReader.isAnnotated(method))) {
                    continue;
                }
                ResolvedLimits byReflection = LimitReader.forBeanMethod(type, method);
                reflected.put(byReflection.where(), byReflection);
                ClassInfo c = EXAMPLE.index.getClassByName(type.getName());
                assertThat(LimitResolver.resolve(null, jandex.beanMethod(c, jandexMethod(c, method))))
                        .as("Jandex reader against reflection on %s", byReflection.where()).isEqualTo(byReflection);
            }
        }
        // a bean's limit, and a MicroProfile Rest Client interface's
        assertThat(names(reflected)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "ExportService.export()", List.of("export"),
                "PartnerClient.send(Todo)", List.of("partner")));
        assertThat(reflected.get("PartnerClient.send(Todo)").limits()).singleElement()
                .extracting(LimitDeclaration::maxWaitMillis, LimitDeclaration::per)
                .containsExactly(5000L, RateLimitPer.APPLICATION);
    }

    // ---------------------------------------------------------------- the example, as each reader finds it

    private static Map<String, List<String>> names(Map<String, ResolvedLimits> methods) {
        Map<String, List<String>> names = new LinkedHashMap<>();
        methods.forEach((where, limits) -> names.put(where, limits.limits().stream().map(LimitDeclaration::name).toList()));
        return names;
    }

    private static boolean isRootResource(Class<?> type) {
        return type.isAnnotationPresent(Path.class) && !type.isInterface() && !Modifier.isAbstract(type.getModifiers());
    }

    private static boolean isResourceMethod(Method method) {
        for (Annotation a : method.getAnnotations()) {
            if (a.annotationType().isAnnotationPresent(HttpMethod.class)) {
                return true;
            }
        }
        return false;
    }

    private static boolean limited(Class<?> type) {
        return LimitReader.isAnnotated(type) || Arrays.stream(type.getDeclaredMethods()).anyMatch(LimitReader::isAnnotated);
    }

    /** The method of {@code c} that {@code method} is, by name and parameter types. */
    private static MethodInfo jandexMethod(ClassInfo c, Method method) {
        List<String> parameters = Arrays.stream(method.getParameterTypes()).map(Class::getName).toList();
        for (MethodInfo m : c.methods()) {
            if (m.name().equals(method.getName())
                    && m.parameterTypes().stream().map(Declarations::className).toList().equals(parameters)) {
                return m;
            }
        }
        throw new AssertionError("Jandex does not know " + method);
    }

    /**
     * The example's classes, loaded; the Jandex index of them; and the index file its compilation wrote, read from the
     * example's own jar (or classes folder) alone.
     */
    private record Example(List<Class<?>> classes, Index index, ResourceIndex openapi) {

        Declarations jandexReader() {
            return new Declarations(index, Declarations.HTTP_METHODS, index.getClassByName(DotName.createSimple(MODULE)));
        }

        static Example read() {
            try {
                URL location = MODULE.getProtectionDomain().getCodeSource().getLocation();
                java.nio.file.Path root = java.nio.file.Path.of(location.toURI());
                List<Class<?>> classes = new ArrayList<>();
                Indexer indexer = new Indexer();
                try (FileSystem jar = Files.isDirectory(root) ? null : FileSystems.newFileSystem(root);
                     Stream<java.nio.file.Path> files = Files.walk(jar == null ? root : jar.getPath("/"))) {
                    java.nio.file.Path base = jar == null ? root : jar.getPath("/");
                    for (java.nio.file.Path file : files.filter(f -> f.toString().endsWith(".class"))
                            .sorted(Comparator.comparing(java.nio.file.Path::toString)).toList()) {
                        try (InputStream in = Files.newInputStream(file)) {
                            indexer.index(in);
                        }
                        String name = base.relativize(file).toString().replace('/', '.').replaceAll("\\.class$", "");
                        classes.add(Class.forName(name, false, MODULE.getClassLoader()));
                    }
                }
                ResourceIndex openapi;
                try (URLClassLoader alone = new URLClassLoader(new URL[] {location}, null)) {
                    openapi = ResourceIndex.load(alone);
                }
                assertThat(openapi.sources()).as("the example's index file").hasSize(1);
                return new Example(classes, indexer.complete(), openapi);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (URISyntaxException | ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
