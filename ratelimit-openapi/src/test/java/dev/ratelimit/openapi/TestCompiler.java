package dev.ratelimit.openapi;

import dev.ratelimit.RateLimit;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.jaxrs.RateLimitExceptionMapper;
import dev.ratelimit.openapi.internal.index.IndexFormat;
import dev.ratelimit.openapi.processor.RateLimitIndexProcessor;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Compiles a small application with the JDK's compiler, as a build does: the processor is not handed
 * to the compiler, it is found on the class path (this module's classes, with their
 * META-INF/services entry) and enabled, or not, by the options a user writes.
 */
final class TestCompiler {

    /** What a user's build passes: the one documented line ({@code -proc:full}), or nothing. */
    enum Processing {
        DOCUMENTED_LINE("-proc:full"), JDK_DEFAULT(), OFF("-proc:none");

        final List<String> options;

        Processing(String... options) {
            this.options = List.of(options);
        }
    }

    record Result(boolean success, List<Diagnostic<? extends JavaFileObject>> diagnostics, Path classes) {

        String messages(Diagnostic.Kind kind) {
            return diagnostics.stream().filter(d -> d.getKind() == kind).map(d -> d.getMessage(Locale.ROOT))
                    .collect(Collectors.joining("\n"));
        }

        Optional<String> index() {
            Path file = classes.resolve(IndexFormat.LOCATION);
            try {
                return Files.exists(file) ? Optional.of(Files.readString(file)) : Optional.empty();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** The index's records without the comments, for assertions. */
        List<String> records() {
            return index().orElseThrow(() -> new AssertionError("no index written; " + diagnostics)).lines()
                    .filter(l -> !l.startsWith("#")).toList();
        }
    }

    private TestCompiler() {
    }

    static Result compile(Path out, Processing processing, Map<String, String> sources) {
        return compile(out, processing, List.of(), sources);
    }

    /**
     * @param sources class name (dotted) to source
     * @param extraClasspath more class path entries (an earlier compilation's output)
     */
    static Result compile(Path out, Processing processing, List<Path> extraClasspath, Map<String, String> sources) {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
            Files.createDirectories(out);
            List<String> options = new ArrayList<>(processing.options);
            options.addAll(List.of("-d", out.toString(), "-classpath", classpath(extraClasspath), "--release", "17",
                    "-Xlint:-options"));
            List<JavaFileObject> units = new ArrayList<>();
            sources.forEach((name, code) -> units.add(new Source(name, code)));
            boolean success = compiler.getTask(null, files, diagnostics, options, null, units).call();
            return new Result(success, diagnostics.getDiagnostics(), out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The APIs an application compiles against, ratelimit (core and CDI), and this module (where the processor is found). */
    private static String classpath(List<Path> extra) {
        Set<String> entries = new LinkedHashSet<>();
        for (Class<?> c : List.of(RateLimitIndexProcessor.class, RateLimit.class, RateLimitAlgorithm.class,
                RateLimitExceptionMapper.class,
                jakarta.ws.rs.Path.class, jakarta.enterprise.util.Nonbinding.class,
                jakarta.interceptor.InterceptorBinding.class,
                org.eclipse.microprofile.openapi.annotations.responses.APIResponse.class)) {
            entries.add(location(c));
        }
        for (Path p : extra) {
            entries.add(p.toString());
        }
        return String.join(File.pathSeparator, entries);
    }

    private static String location(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final class Source extends SimpleJavaFileObject {
        private final String code;

        Source(String className, String code) {
            super(URI.create("string:///" + className.replace('.', '/') + Kind.SOURCE.extension), Kind.SOURCE);
            this.code = code;
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return code;
        }
    }
}
