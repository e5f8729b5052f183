package dev.ratelimit.openapi;

import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.openapi.api.OpenApiConfig;
import io.smallrye.openapi.api.OpenApiDocument;
import io.smallrye.openapi.runtime.OpenApiProcessor;
import io.smallrye.openapi.runtime.io.Format;
import io.smallrye.openapi.runtime.io.OpenApiSerializer;
import io.swagger.parser.OpenAPIParser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.jboss.jandex.Index;
import org.jboss.jandex.IndexView;
import org.jboss.jandex.Indexer;

/**
 * Builds an application's OpenAPI document for real, the way a SmallRye-based runtime does at start
 * (Open Liberty) or at build time (Quarkus): scan the classes, then run the {@code mp.openapi.filter}
 * named in the configuration. The configuration given is the application's MicroProfile Config while the
 * document is built ({@code ConfigProvider.getConfig()} answers it, as the filter asks), and only then.
 */
final class OpenApiDocuments {

    static final String FILTER = "mp.openapi.filter";

    private OpenApiDocuments() {
    }

    /** The document of {@code classes}, with the configuration given (and nothing else). */
    static OpenAPI build(ClassLoader loader, Map<String, String> config, IndexView index) {
        Config applicationConfig = new SmallRyeConfigBuilder().withDefaultValues(config).build();
        OpenApiConfig openApiConfig = OpenApiConfig.fromConfig(applicationConfig);
        ConfigProviderResolver resolver = ConfigProviderResolver.instance();
        resolver.releaseConfig(resolver.getConfig(loader)); // one that an earlier getConfig() made and kept
        resolver.registerConfig(applicationConfig, loader);
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            OpenApiDocument document = OpenApiDocument.newInstance();
            document.reset();
            document.config(openApiConfig);
            document.modelFromAnnotations(OpenApiProcessor.modelFromAnnotations(openApiConfig, loader, index));
            document.filter(OpenApiProcessor.getFilter(openApiConfig, loader, index));
            document.initialize();
            return document.get();
        } finally {
            thread.setContextClassLoader(previous);
            resolver.releaseConfig(applicationConfig);
        }
    }

    static OpenAPI build(Map<String, String> config, Class<?>... classes) {
        try {
            return build(OpenApiDocuments.class.getClassLoader(), config, Index.of(classes));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A Jandex index of every class under {@code classesDir}. */
    static IndexView indexOf(Path classesDir) {
        Indexer indexer = new Indexer();
        try (Stream<Path> files = Files.walk(classesDir)) {
            for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class"))::iterator) {
                try (InputStream in = Files.newInputStream(file)) {
                    indexer.index(in);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return indexer.complete();
    }

    static String json(OpenAPI model) {
        return serialize(model, Format.JSON);
    }

    static String yaml(OpenAPI model) {
        return serialize(model, Format.YAML);
    }

    private static String serialize(OpenAPI model, Format format) {
        try {
            return OpenApiSerializer.serialize(model, format);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What swagger-parser says about a document: every error and warning it reports. */
    static List<String> validationMessages(String document) {
        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        SwaggerParseResult result = new OpenAPIParser().readContents(document, null, options);
        if (result.getOpenAPI() == null) {
            return List.of("not parsed: " + result.getMessages());
        }
        return result.getMessages() == null ? List.of() : result.getMessages();
    }
}
