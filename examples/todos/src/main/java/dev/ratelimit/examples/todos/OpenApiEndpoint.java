package dev.ratelimit.examples.todos;

import io.smallrye.openapi.api.SmallRyeOpenAPI;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.eclipse.microprofile.config.ConfigProvider;
import org.glassfish.grizzly.http.server.HttpHandler;
import org.glassfish.grizzly.http.server.Request;
import org.jboss.jandex.IndexView;
import org.jboss.jandex.Indexer;

/**
 * {@code GET /openapi} on the embedded server, as Open Liberty and Payara serve it: the document
 * SmallRye OpenAPI builds from the application's classes, run through the {@code mp.openapi.filter}
 * of the configuration ({@code dev.ratelimit.openapi.RateLimitOASFilter}, which publishes the rate
 * limits). YAML by default; JSON for {@code Accept: application/json} or {@code ?format=json}.
 *
 * <p>It is a Grizzly {@link HttpHandler} of its own, mounted on the same server beside Jersey's (context path
 * {@value #PATH}), not a Jakarta REST resource: so the document does not describe itself, no rate limit
 * covers it, and the other runtimes, which serve their own {@code /openapi}, never see it. Built once, when
 * the server starts, as Open Liberty does.
 */
final class OpenApiEndpoint extends ReadOnlyEndpoint {

    static final String PATH = "/openapi";

    private final byte[] yaml;
    private final byte[] json;

    private OpenApiEndpoint(String yaml, String json) {
        super("openapi", PATH);
        this.yaml = yaml.getBytes(StandardCharsets.UTF_8);
        this.json = json.getBytes(StandardCharsets.UTF_8);
    }

    /** Scans the application's classes (this package) and builds the document, filters applied. */
    static OpenApiEndpoint build() {
        SmallRyeOpenAPI document = SmallRyeOpenAPI.builder()
                .withConfig(ConfigProvider.getConfig())
                .withApplicationClassLoader(TodosApplication.class.getClassLoader())
                .withIndex(applicationIndex())
                .build();
        return new OpenApiEndpoint(document.toYAML(), document.toJSON());
    }

    @Override
    Document document(Request request) {
        boolean asJson = wantsJson(request);
        return new Document((asJson ? "application/json" : "application/yaml") + ";charset=UTF-8", asJson ? json : yaml,
                false);
    }

    /** {@code ?format=json|yaml} first, then the Accept header, as MicroProfile OpenAPI runtimes choose. */
    private static boolean wantsJson(Request request) {
        String query = request.getQueryString();
        if (query != null) {
            for (String parameter : query.split("&")) {
                if (parameter.toLowerCase(Locale.ROOT).startsWith("format=")) {
                    return parameter.substring("format=".length()).equalsIgnoreCase("json");
                }
            }
        }
        for (String accept : request.getHeaders("Accept")) {
            if (accept.contains("application/json") && !accept.contains("yaml")) {
                return true;
            }
        }
        return false;
    }

    /** A Jandex index of every class of the application's package, from its folder or its jar. */
    private static IndexView applicationIndex() {
        String packagePath = TodosApplication.class.getPackageName().replace('.', '/') + '/';
        Indexer indexer = new Indexer();
        try {
            Path location = Path.of(TodosApplication.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (Files.isDirectory(location)) {
                try (Stream<Path> files = Files.list(location.resolve(packagePath))) {
                    for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class"))::iterator) {
                        try (InputStream in = Files.newInputStream(file)) {
                            indexer.index(in);
                        }
                    }
                }
            } else {
                try (JarFile jar = new JarFile(location.toFile())) {
                    for (JarEntry entry : (Iterable<JarEntry>) jar.stream()::iterator) {
                        String name = entry.getName();
                        if (name.startsWith(packagePath) && name.endsWith(".class")
                                && name.indexOf('/', packagePath.length()) < 0) {
                            try (InputStream in = jar.getInputStream(entry)) {
                                indexer.index(in);
                            }
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot index the application's classes for the OpenAPI document", e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        return indexer.complete();
    }
}
