package dev.ratelimit.examples.todos;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.smallrye.openapi.api.SmallRyeOpenAPI;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.jandex.IndexView;
import org.jboss.jandex.Indexer;

/**
 * {@code GET /openapi} on the embedded server, as Open Liberty and Payara serve it: the document
 * SmallRye OpenAPI builds from the application's classes, run through the {@code mp.openapi.filter}
 * of the configuration ({@code dev.ratelimit.openapi.RateLimitOASFilter}, which publishes the rate
 * limits). YAML by default; JSON for {@code Accept: application/json} or {@code ?format=json}.
 *
 * <p>It is an HTTP context of its own beside Jersey's, not a Jakarta REST resource: so the document
 * does not describe itself, no rate limit covers it, and the other runtimes, which serve their own
 * {@code /openapi}, never see it. Built once, when the server starts, as Open Liberty does.
 */
final class OpenApiEndpoint implements HttpHandler {

    static final String PATH = "/openapi";

    private final byte[] yaml;
    private final byte[] json;

    private OpenApiEndpoint(String yaml, String json) {
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
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            if (!PATH.equals(path) && !(PATH + "/").equals(path)) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            String method = exchange.getRequestMethod();
            if (!"GET".equals(method) && !"HEAD".equals(method)) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            boolean asJson = wantsJson(exchange);
            byte[] body = asJson ? json : yaml;
            exchange.getResponseHeaders().set("Content-Type",
                    (asJson ? "application/json" : "application/yaml") + ";charset=UTF-8");
            if ("HEAD".equals(method)) {
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** {@code ?format=json|yaml} first, then the Accept header, as MicroProfile OpenAPI runtimes choose. */
    private static boolean wantsJson(HttpExchange exchange) {
        String query = exchange.getRequestURI().getQuery();
        if (query != null) {
            for (String parameter : query.split("&")) {
                if (parameter.toLowerCase(Locale.ROOT).startsWith("format=")) {
                    return parameter.substring("format=".length()).equalsIgnoreCase("json");
                }
            }
        }
        List<String> accept = exchange.getRequestHeaders().get("Accept");
        return accept != null && accept.stream().anyMatch(a -> a.contains("application/json") && !a.contains("yaml"));
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
