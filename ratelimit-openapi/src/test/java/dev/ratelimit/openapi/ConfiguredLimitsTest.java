package dev.ratelimit.openapi;

import static dev.ratelimit.openapi.RateLimitOASFilterTest.limits;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.openapi.internal.index.ResourceIndex;
import dev.ratelimit.openapi.testapp.AccountResource;
import dev.ratelimit.openapi.testapp.AccountsApi;
import dev.ratelimit.openapi.testapp.Item;
import dev.ratelimit.openapi.testapp.ItemResource;
import dev.ratelimit.openapi.testapp.ReviewResource;
import dev.ratelimit.openapi.testapp.ShopApplication;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.junit.jupiter.api.Test;

/**
 * Run-time configuration and plans in the document: the test application's document built with MicroProfile Config
 * saying more than the code (overrides, modes, plans, {@code ratelimit.enabled}). The filter reads the
 * configuration when it runs, as the application reads it at start-up; each document here is built with
 * a configuration of its own, registered for the application's class loader while it is built and
 * released afterwards.
 */
class ConfiguredLimitsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String OUR_429 = "#/components/responses/RateLimitTooManyRequests";

    /** The test application's document, filtered under {@code config}, as JSON. */
    private static JsonNode document(Map<String, String> config) {
        Map<String, String> all = new HashMap<>(config);
        all.put(OpenApiDocuments.FILTER, RateLimitOASFilter.class.getName());
        String json = OpenApiDocuments.json(OpenApiDocuments.build(all, ShopApplication.class, ItemResource.class,
                ReviewResource.class, AccountsApi.class, AccountResource.class, Item.class));
        assertThat(OpenApiDocuments.validationMessages(json)).isEmpty();
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JsonNode unfiltered() {
        String json = OpenApiDocuments.json(OpenApiDocuments.build(Map.of(), ShopApplication.class, ItemResource.class,
                ReviewResource.class, AccountsApi.class, AccountResource.class, Item.class));
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JsonNode operation(JsonNode document, String method, String path) {
        JsonNode operation = document.path("paths").path(path).path(method);
        assertThat(operation.isMissingNode()).as("%s %s", method, path).isFalse();
        return operation;
    }

    @Test
    void overridesChangeThePermitLimitTheWindowAndTheAlgorithmThatAreShown() {
        JsonNode document = document(Map.of("ratelimit.limits.default.permit-limit", "7",
                "ratelimit.limits.default.window-seconds", "30", "ratelimit.limits.default.algorithm", "token-bucket",
                "ratelimit.limits.module.permit-limit", "1000"));
        JsonNode list = operation(document, "get", "/api/items");
        assertThat(limits(list)).containsExactly("default 7/30s TOKEN_BUCKET cost 1 TRANSPORT method enforce");
        assertThat(list.path("description").asText()).contains("\"default\" allows 7 requests per 30 seconds. "
                + "Token bucket: a burst of 7 requests, then one every 4.29 seconds.");
        assertThat(limits(operation(document, "get", "/api/items/{id}")))
                .containsExactly("module 1000/60s SLIDING_WINDOW cost 1 TRANSPORT module enforce");
    }

    @Test
    void aLimitThatIsOffIsNotDocumentedAndAnOperationWhoseLimitsAreAllOffIsLeftAsGenerated() {
        JsonNode document = document(Map.of("ratelimit.limits.default.mode", "off", "ratelimit.limits.burst.mode", "OFF"));
        assertThat(operation(document, "get", "/api/items")).isEqualTo(operation(unfiltered(), "get", "/api/items"));
        JsonNode create = operation(document, "post", "/api/items");
        assertThat(limits(create)).containsExactly("hourly 500/3600s SLIDING_WINDOW cost 1 PRINCIPAL method enforce");
        assertThat(create.path("description").asText()).doesNotContain("burst");
    }

    @Test
    void ratelimitModeOffLeavesEveryOperationAsGenerated() {
        assertThat(document(Map.of("ratelimit.mode", "off")).path("paths")).isEqualTo(unfiltered().path("paths"));
    }

    @Test
    void aShadowLimitIsListedAndDescribedButBringsNo429NorHeaders() {
        JsonNode document = document(Map.of("ratelimit.limits.default.mode", "shadow", "ratelimit.limits.burst.mode", "shadow"));
        JsonNode list = operation(document, "get", "/api/items");
        assertThat(limits(list)).containsExactly("default 3/60s SLIDING_WINDOW cost 1 TRANSPORT method shadow");
        assertThat(list.path("description").asText())
                .contains("Shadow mode: it is counted, but never refuses a request and sends no header.")
                .doesNotContain("429");
        assertThat(list.path("responses").has("429")).isFalse();
        assertThat(list.at("/responses/200/headers").isMissingNode()).isTrue();

        // beside an enforced limit: the 429 and the headers are there, for that one
        JsonNode create = operation(document, "post", "/api/items");
        assertThat(limits(create)).containsExactly("burst 5/1s SLIDING_WINDOW cost 1 TRANSPORT method shadow",
                "hourly 500/3600s SLIDING_WINDOW cost 1 PRINCIPAL method enforce");
        assertThat(create.at("/responses/429/$ref").asText()).isEqualTo(OUR_429);
        assertThat(create.path("description").asText()).contains("Shadow mode", "429 Too Many Requests");
    }

    @Test
    void eachLimitListsThePlansThatChangeItInTheDescriptionAndTheExtension() {
        JsonNode document = document(Map.of("ratelimit.plans", "gold,silver",
                "ratelimit.plans.gold.limits.default.permit-limit", "10",
                "ratelimit.plans.silver.limits.default.mode", "off",
                "ratelimit.plans.gold.limits.export.mode", "off",
                "ratelimit.plans.silver.limits.reports.algorithm", "token_bucket",
                "ratelimit.plans.silver.limits.reports.window-seconds", "120"));
        JsonNode list = operation(document, "get", "/api/items");
        assertThat(list.path("description").asText()).contains("\"default\" allows 3 requests per 60 seconds "
                + "(plan \"gold\": 10 per 60 seconds; not limited for plan \"silver\").");
        assertThat(list.at("/x-ratelimit/0/plans").toString())
                .isEqualTo("{\"gold\":{\"permitLimit\":10,\"windowSeconds\":60},\"silver\":{\"mode\":\"off\"}}");
        assertThat(list.at("/x-ratelimit/0/permitLimit").asInt()).isEqualTo(3);

        JsonNode export = operation(document, "get", "/api/items/export");
        assertThat(export.path("description").asText()).contains("(not limited for plan \"gold\")");
        assertThat(export.at("/x-ratelimit/0/plans").toString()).isEqualTo("{\"gold\":{\"mode\":\"off\"}}");

        JsonNode report = operation(document, "get", "/api/items/report");
        assertThat(report.path("description").asText()).contains("(plan \"silver\": 10 per 120 seconds, token bucket)");
        assertThat(report.at("/x-ratelimit/0/plans").toString())
                .isEqualTo("{\"silver\":{\"permitLimit\":10,\"windowSeconds\":120,\"algorithm\":\"TOKEN_BUCKET\"}}");

        // a limit no plan changes lists none
        assertThat(operation(document, "get", "/api/items/{id}").at("/x-ratelimit/0").has("plans")).isFalse();
    }

    @Test
    void aLimitOffForCallersInNoPlanButOnForAPlanIsDocumentedForThatPlan() {
        JsonNode document = document(Map.of("ratelimit.plans", "free", "ratelimit.limits.default.mode", "off",
                "ratelimit.plans.free.limits.default.mode", "enforce"));
        JsonNode list = operation(document, "get", "/api/items");
        assertThat(limits(list)).containsExactly("default 3/60s SLIDING_WINDOW cost 1 TRANSPORT method off");
        assertThat(list.at("/x-ratelimit/0/plans").toString())
                .isEqualTo("{\"free\":{\"permitLimit\":3,\"windowSeconds\":60,\"mode\":\"enforce\"}}");
        assertThat(list.path("description").asText())
                .contains("\"default\" does not limit callers in no plan (plan \"free\": 3 per 60 seconds, enforced).");
        assertThat(list.at("/responses/429/$ref").asText()).isEqualTo(OUR_429);
    }

    @Test
    void withTheLibraryDisabledTheDocumentIsLeftAlone() {
        assertThat(document(Map.of("ratelimit.enabled", "false"))).isEqualTo(unfiltered());
    }

    @Test
    void aMalformedValueFailsTheFilterNamingTheKeyAndTheValueAsItFailsStartUp() {
        Map<String, String> config = Map.of(OpenApiDocuments.FILTER, RateLimitOASFilter.class.getName(),
                "ratelimit.limits.default.permit-limit", "lots");
        assertThatThrownBy(() -> OpenApiDocuments.build(config, ShopApplication.class, ItemResource.class))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessage("ratelimit configuration: ratelimit.limits.default.permit-limit must be an integer >= 1, "
                        + "was \"lots\"");
    }

    @Test
    void aDocumentFilteredAgainUnderOtherSettingsSaysWhatTheLastRunFoundOnce() throws Exception {
        // Quarkus may filter at build time, then again at start-up with the run-time configuration
        OpenAPI model = OpenApiDocuments.build(Map.of(
                OpenApiDocuments.FILTER, RateLimitOASFilter.class.getName(), "ratelimit.limits.burst.permit-limit", "4"),
                ShopApplication.class, ItemResource.class, ReviewResource.class, AccountsApi.class, AccountResource.class,
                Item.class);
        model.getPaths().getPathItem("/api/items").getPOST().setDescription("Creates an item.\n\n"
                + model.getPaths().getPathItem("/api/items").getPOST().getDescription());
        RateLimitOASFilter.document(model, ResourceIndex.load(
                ConfiguredLimitsTest.class.getClassLoader()), RateLimitSettings.of(Map.of(
                "ratelimit.limits.burst.permit-limit", "6")));
        JsonNode create = operation(JSON.readTree(OpenApiDocuments.json(model)), "post", "/api/items");
        String description = create.path("description").asText();
        assertThat(description).startsWith("Creates an item.\n\nRate limits (counted per client):\n- \"burst\" allows 6 requests")
                .doesNotContain("allows 4 requests");
        assertThat(description.split("counted per client", -1)).hasSize(2);
        assertThat(create.at("/x-ratelimit/0/permitLimit").asInt()).isEqualTo(6);
    }

    @Test
    void theConfigurationIsReadEachTimeTheDocumentIsFilteredAndReleasedAfterwards() {
        assertThat(operation(document(Map.of("ratelimit.limits.default.permit-limit", "4")), "get", "/api/items")
                .at("/x-ratelimit/0/permitLimit").asInt()).isEqualTo(4);
        assertThat(operation(document(Map.of("ratelimit.limits.default.permit-limit", "5")), "get", "/api/items")
                .at("/x-ratelimit/0/permitLimit").asInt()).isEqualTo(5);
        assertThat(ConfigProvider.getConfig(ConfiguredLimitsTest.class.getClassLoader())
                .getOptionalValue("ratelimit.limits.default.permit-limit", String.class)).isEmpty();
    }
}
