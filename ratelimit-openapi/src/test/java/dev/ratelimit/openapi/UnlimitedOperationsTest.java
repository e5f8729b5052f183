package dev.ratelimit.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratelimit.openapi.TestCompiler.Processing;
import dev.ratelimit.openapi.TestCompiler.Result;
import dev.ratelimit.openapi.internal.index.ResourceIndex;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Map;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Paths;
import org.jboss.jandex.IndexView;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Applications without a module limit, compiled here with the processor: what has no limit stays as
 * the generator wrote it. The filter reads only the compiled application's index (not this build's).
 */
class UnlimitedOperationsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String APP = """
            package app;
            @jakarta.ws.rs.ApplicationPath("/")
            public class App extends jakarta.ws.rs.core.Application {}
            """;

    private static final String MIXED = """
            package app;
            import dev.ratelimit.RateLimit;
            import jakarta.ws.rs.*;
            @Path("/mixed")
            public class Mixed {
                @GET @Produces("text/plain") @RateLimit(permitLimit = 2, windowSeconds = 30, name = "reads") public String limited() { return ""; }
                @POST @Consumes("text/plain") public void unlimited(String body) {}
                @GET @Path("{key: [a-z]+}") @Produces("text/plain") public String alsoUnlimited(@PathParam("key") String key) { return key; }
            }
            """;

    @Test
    void operationsWithoutLimitsAreLeftExactlyAsGenerated(@TempDir Path out) throws Exception {
        Path classes = compile(out, Map.of("app.App", APP, "app.Mixed", MIXED));
        JsonNode plain = JSON.readTree(OpenApiDocuments.json(document(classes, false)));
        JsonNode filtered = JSON.readTree(OpenApiDocuments.json(document(classes, true)));

        for (String unlimited : new String[] {"/paths/~1mixed/post", "/paths/~1mixed~1{key}/get"}) {
            assertThat(plain.at(unlimited).isObject()).as("%s is in the generated document", unlimited).isTrue();
            assertThat(plain.at(unlimited + "/responses").size()).as("%s has responses", unlimited).isPositive();
            assertThat(filtered.at(unlimited)).as(unlimited).isEqualTo(plain.at(unlimited));
        }
        JsonNode limited = filtered.at("/paths/~1mixed/get");
        assertThat(limited.at("/x-ratelimit/0/name").asText()).isEqualTo("reads");
        assertThat(limited.at("/responses/429/$ref").asText()).isEqualTo("#/components/responses/RateLimitTooManyRequests");
        assertThat(OpenApiDocuments.validationMessages(filtered.toString())).isEmpty();
    }

    @Test
    void anApplicationWithoutLimitsGetsNothingNotEvenComponents(@TempDir Path out) throws Exception {
        Path classes = compile(out, Map.of("app.App", APP, "app.Mixed", MIXED.replace(
                "@RateLimit(permitLimit = 2, windowSeconds = 30, name = \"reads\")", "")));
        assertThat(OpenApiDocuments.json(document(classes, true))).isEqualTo(OpenApiDocuments.json(document(classes, false)));
    }

    @ParameterizedTest
    @CsvSource({
            "/api, /ctx/api", // a prefix in front (a context root, quarkus.rest.path)
            "/api, ''"        // the application path left out (put in servers instead)
    })
    void aDocumentWhosePathsMoveTheApplicationPathIsMatchedAllTheSame(String generated, String runtime,
                                                                       @TempDir Path out) throws Exception {
        Path classes = compile(out, Map.of("app.App", APP.replace("(\"/\")", "(\"/api\")"), "app.Mixed", MIXED));
        try (URLClassLoader loader = loader(classes)) {
            OpenAPI model = OpenApiDocuments.build(loader, Map.of(), OpenApiDocuments.indexOf(classes));
            Paths moved = OASFactory.createPaths();
            model.getPaths().getPathItems().forEach((path, item) -> {
                assertThat(path).startsWith(generated);
                moved.addPathItem(runtime + path.substring(generated.length()), item);
            });
            model.setPaths(moved);
            RateLimitOASFilter.document(model, ResourceIndex.load(loader));
            JsonNode filtered = JSON.readTree(OpenApiDocuments.json(model));
            String mixed = "/paths/" + (runtime + "/mixed").replace("/", "~1");
            assertThat(filtered.at(mixed + "/get/x-ratelimit/0/name").asText()).as(filtered.toString()).isEqualTo("reads");
            assertThat(filtered.at(mixed + "/post/x-ratelimit").isMissingNode()).isTrue();
        }
    }

    private static Path compile(Path out, Map<String, String> sources) {
        Result result = TestCompiler.compile(out, Processing.DOCUMENTED_LINE, sources);
        assertThat(result.success()).as(result.diagnostics().toString()).isTrue();
        return out;
    }

    /** The application's document as SmallRye builds it, then (or not) filtered with the application's own index. */
    private static OpenAPI document(Path classes, boolean filtered) throws Exception {
        try (URLClassLoader loader = loader(classes)) {
            IndexView index = OpenApiDocuments.indexOf(classes);
            OpenAPI model = OpenApiDocuments.build(loader, Map.of(), index);
            if (filtered) {
                RateLimitOASFilter.document(model, ResourceIndex.load(loader));
            }
            return model;
        }
    }

    /** Sees the application's classes and index, and not this build's test index. */
    private static URLClassLoader loader(Path classes) throws Exception {
        return new URLClassLoader(new URL[] {classes.toUri().toURL()}, UnlimitedOperationsTest.class.getClassLoader()) {
            @Override
            public java.util.Enumeration<URL> getResources(String name) throws java.io.IOException {
                return name.startsWith("META-INF/ratelimit/") ? findResources(name) : super.getResources(name);
            }
        };
    }
}
