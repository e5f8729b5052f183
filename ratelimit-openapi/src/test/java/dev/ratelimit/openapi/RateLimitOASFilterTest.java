package dev.ratelimit.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratelimit.openapi.testapp.AccountResource;
import dev.ratelimit.openapi.testapp.AccountsApi;
import dev.ratelimit.openapi.testapp.Item;
import dev.ratelimit.openapi.testapp.ItemResource;
import dev.ratelimit.openapi.testapp.ReviewResource;
import dev.ratelimit.openapi.testapp.ShopApplication;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The filter on a small application compiled by this build with the processor enabled as a user
 * enables it ({@code -proc:full}), its document built by SmallRye OpenAPI with
 * {@code mp.openapi.filter} naming the filter, and read back as the JSON a client downloads.
 */
class RateLimitOASFilterTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> RATE_LIMIT_HEADERS = List.of("RateLimit-Limit", "RateLimit-Remaining",
            "RateLimit-Reset", "RateLimit-Policy", "RateLimit");
    private static final List<String> HTTP_METHODS = List.of("get", "put", "post", "delete", "options", "head",
            "patch", "trace");
    private static final String OUR_429 = "#/components/responses/RateLimitTooManyRequests";

    private static OpenAPI model;
    private static JsonNode document;

    @BeforeAll
    static void buildTheDocument() throws Exception {
        model = OpenApiDocuments.build(Map.of(OpenApiDocuments.FILTER, RateLimitOASFilter.class.getName()),
                ShopApplication.class, ItemResource.class, ReviewResource.class, AccountsApi.class,
                AccountResource.class, Item.class);
        document = JSON.readTree(OpenApiDocuments.json(model));
    }

    @Test
    void methodLimitGetsA429AndTheHeadersOnEveryOtherResponse() {
        JsonNode get = operation("get", "/api/items");
        assertThat(limits(get)).containsExactly("default 3/60s SLIDING_WINDOW cost 1 TRANSPORT method enforce");
        assertThat(get.path("description").asText()).isEqualTo("Rate limit (counted per client):\n"
                + "- \"default\" allows 3 requests per 60 seconds. Sliding window: a request counts for up to 60 seconds.\n"
                + "\nA request over a limit is answered 429 Too Many Requests with Retry-After; the RateLimit headers of "
                + "every response tell what is left.");
        assertThat(get.at("/responses/429/$ref").asText()).isEqualTo(OUR_429);
        assertThat(headerRefs(get.at("/responses/200"))).containsExactlyElementsOf(RATE_LIMIT_HEADERS);
    }

    @Test
    void twoMethodLimitsAreListedInDeclarationOrderWithTheirScope() {
        JsonNode post = operation("post", "/api/items");
        assertThat(limits(post)).containsExactly("burst 5/1s SLIDING_WINDOW cost 1 TRANSPORT method enforce",
                "hourly 500/3600s SLIDING_WINDOW cost 1 PRINCIPAL method enforce");
        assertThat(post.path("description").asText()).startsWith("Rate limits (counted per client):\n"
                + "- \"burst\" allows 5 requests per 1 second. Sliding window: a request counts for up to 1 second.\n"
                + "- \"hourly\" allows 500 requests per 3600 seconds. Only requests that pass authorization count. "
                + "Sliding window: a request counts for up to 3600 seconds.\n\n");
    }

    @Test
    void algorithmAndCostAreShownInTheExtensionAndTheDescription() {
        JsonNode report = operation("get", "/api/items/report");
        assertThat(limits(report)).containsExactly("reports 10/60s STRICT_WINDOW cost 4 TRANSPORT method enforce");
        assertThat(report.path("description").asText()).contains("\"reports\" allows 10 permits per 60 seconds. "
                + "Each call costs 4 permits. Strict window: never more than 10 permits in any span of 60 seconds, at a "
                + "sustained rate of 8/9 of that (8.89 per 60 seconds) for a client that keeps retrying.");
        assertThat(report.at("/responses/429/$ref").asText()).isEqualTo(OUR_429);
    }

    @Test
    void regexPathParameterIsMatchedByItsNameAndTheModuleLimitCoversIt() {
        assertThat(document.path("paths").has("/api/items/{id}")).isTrue();
        JsonNode get = operation("get", "/api/items/{id}");
        assertThat(limits(get)).containsExactly("module 100/60s SLIDING_WINDOW cost 1 TRANSPORT module enforce");
        assertThat(headerRefs(get.at("/responses/404"))).containsExactlyElementsOf(RATE_LIMIT_HEADERS);
        assertThat(limits(operation("delete", "/api/items/{id}"))).containsExactly("module 100/60s SLIDING_WINDOW cost 1 TRANSPORT module enforce");
    }

    @Test
    void subResourceMethodsHaveTheirClassAndMethodLimitsAndNotTheModule() {
        assertThat(limits(operation("get", "/api/items/{itemId}/reviews")))
                .containsExactly("reviews 20/60s SLIDING_WINDOW cost 1 TRANSPORT class enforce",
                        "review-reads 10/1s SLIDING_WINDOW cost 1 TRANSPORT method enforce");
        assertThat(limits(operation("post", "/api/items/{itemId}/reviews")))
                .containsExactly("reviews 20/60s SLIDING_WINDOW cost 1 TRANSPORT class enforce");
        assertThat(limits(operation("get", "/api/items/{itemId}/reviews/{reviewId}")))
                .containsExactly("reviews 20/60s SLIDING_WINDOW cost 1 TRANSPORT class enforce");
    }

    @Test
    void classLimitCoversTheMethodsOfAnImplementedAnnotatedInterface() {
        assertThat(limits(operation("get", "/api/accounts"))).containsExactly("accounts 30/60s SLIDING_WINDOW cost 1 TRANSPORT class enforce");
        assertThat(limits(operation("put", "/api/accounts/{name}"))).containsExactly("accounts 30/60s SLIDING_WINDOW cost 1 TRANSPORT class enforce");
    }

    @Test
    void operationThatDeclaresItsOwn429KeepsItsDescriptionAndContentAndGainsTheHeaders() {
        JsonNode export = operation("get", "/api/items/export");
        JsonNode own = export.at("/responses/429");
        assertThat(own.has("$ref")).isFalse();
        assertThat(own.path("description").asText()).isEqualTo("One export per ten seconds");
        assertThat(own.path("content").has("text/plain")).isTrue();
        assertThat(own.path("content").has("application/problem+json")).isFalse();
        List<String> expected = new ArrayList<>(RATE_LIMIT_HEADERS);
        expected.add("Retry-After");
        assertThat(headerRefs(own)).containsExactlyElementsOf(expected);
        assertThat(own.at("/headers/Retry-After/$ref").asText()).isEqualTo("#/components/headers/RateLimit-Retry-After");
        assertThat(limits(export)).containsExactly("export 1/10s SLIDING_WINDOW cost 1 TRANSPORT method enforce");
    }

    @Test
    void the429IsAProblemJsonResponseWithRetryAfterAndEveryRateLimitHeader() {
        JsonNode response = document.at("/components/responses/RateLimitTooManyRequests");
        assertThat(response.at("/content/application~1problem+json/schema/$ref").asText())
                .isEqualTo("#/components/schemas/RateLimitProblem");
        List<String> expected = new ArrayList<>(RATE_LIMIT_HEADERS);
        expected.add("Retry-After");
        assertThat(headerRefs(response)).containsExactlyElementsOf(expected);
        JsonNode problem = document.at("/components/schemas/RateLimitProblem");
        assertThat(fieldNames(problem.path("properties")))
                .containsExactly("type", "title", "status", "detail", "violated-policies");
        assertThat(problem.at("/properties/violated-policies/type").asText()).isEqualTo("array");
        assertThat(problem.at("/properties/violated-policies/items/type").asText()).isEqualTo("string");
        assertThat(problem.at("/properties/status/type").asText()).isEqualTo("integer");
    }

    @Test
    void everyHeaderIsDescribedWithItsMeaningAndUnit() {
        JsonNode headers = document.at("/components/headers");
        assertThat(fieldNames(headers)).containsExactly("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset",
                "RateLimit-Policy", "RateLimit", "RateLimit-Retry-After");
        assertThat(headers.at("/RateLimit-Limit/description").asText()).contains("Unit: permits (requests, at a cost of 1)");
        assertThat(headers.at("/RateLimit-Remaining/description").asText()).contains("Unit: permits");
        assertThat(headers.at("/RateLimit-Reset/description").asText()).contains("Unit: seconds");
        assertThat(headers.at("/RateLimit-Retry-After/description").asText()).contains("Unit: seconds");
        assertThat(headers.at("/RateLimit-Policy/description").asText()).contains("q=<permits per window>", "w=<window in seconds>");
        assertThat(headers.at("/RateLimit/description").asText()).contains("r=<permits remaining>", "t=<seconds until a permit returns>");
        for (JsonNode header : headers) {
            assertThat(header.at("/schema/type").asText()).isIn("integer", "string");
        }
    }

    @Test
    void theModuleCoversEveryOperationOfThisApplicationSoEveryOneIsDocumented() {
        int operations = 0;
        for (JsonNode path : document.path("paths")) {
            for (String method : fieldNames(path)) {
                if (!HTTP_METHODS.contains(method)) {
                    continue; // path-level parameters
                }
                JsonNode operation = path.path(method);
                operations++;
                assertThat(operation.path("x-ratelimit").isArray()).as(operation.toString()).isTrue();
                assertThat(operation.at("/responses/429").isMissingNode()).isFalse();
            }
        }
        assertThat(operations).isEqualTo(11);
    }

    @Test
    void theDocumentValidatesWithoutErrorsOrWarningsAsJsonAndAsYaml() {
        assertThat(OpenApiDocuments.validationMessages(OpenApiDocuments.json(model))).isEmpty();
        assertThat(OpenApiDocuments.validationMessages(OpenApiDocuments.yaml(model))).isEmpty();
    }

    @Test
    void filteringTheDocumentAgainChangesNothing() {
        String once = OpenApiDocuments.json(model);
        new RateLimitOASFilter().filterOpenAPI(model);
        assertThat(OpenApiDocuments.json(model)).isEqualTo(once);
    }

    private static JsonNode operation(String method, String path) {
        JsonNode operation = document.path("paths").path(path).path(method);
        assertThat(operation.isMissingNode()).as("%s %s in %s", method, path, document.path("paths")).isFalse();
        return operation;
    }

    /** The x-ratelimit items as {@code name permit/windows ALGORITHM cost n SCOPE declaredOn mode}. */
    static List<String> limits(JsonNode operation) {
        List<String> limits = new ArrayList<>();
        for (JsonNode item : operation.path("x-ratelimit")) {
            limits.add(item.path("name").asText() + " " + item.path("permitLimit").asInt() + "/"
                    + item.path("windowSeconds").asInt() + "s " + item.path("algorithm").asText() + " cost "
                    + item.path("cost").asInt() + " " + item.path("scope").asText() + " "
                    + item.path("declaredOn").asText() + " " + item.path("mode").asText());
        }
        return limits;
    }

    /** The names of a response's headers, each checked to be a reference to our header component. */
    private static List<String> headerRefs(JsonNode response) {
        List<String> names = fieldNames(response.path("headers"));
        for (String name : names) {
            assertThat(response.path("headers").path(name).path("$ref").asText())
                    .startsWith("#/components/headers/RateLimit");
        }
        return names;
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        return names;
    }
}
