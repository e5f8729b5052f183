package dev.ratelimit.tck;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratelimit.tck.support.Reply;
import io.swagger.parser.OpenAPIParser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * The OpenAPI document the server publishes ({@code tck.openApiPath}, default {@code /openapi};
 * Quarkus serves {@code /q/openapi}; {@code none} skips these tests): it parses and validates, and each
 * limited operation states its limits with their effective values (overrides and modes applied), the plans that
 * change them, algorithm and cost, and documents the 429 and the rate-limit headers.
 * Global limits are configuration and are not published. Every check fails on a document that lacks
 * what it looks at: a missing operation, extension or response is a failure, never a loop over nothing.
 */
class OpenApiDocumentTest extends TckTestBase {

    static final String OPEN_API_PATH_PROPERTY = "tck.openApiPath";
    static final String REPORT = "/todos/report";
    static final String IMPORT = "/todos/import";
    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * What a runtime itself adds outside OpenAPI, which swagger-parser reports: Payara's top-level
     * {@code endpoints} map (its paths per context root). Nothing else is tolerated.
     */
    private static final List<String> RUNTIME_ADDITIONS = List.of("attribute endpoints is unexpected");
    private static final List<String> RATE_LIMIT_HEADERS = List.of("RateLimit-Limit", "RateLimit-Remaining",
            "RateLimit-Reset", "RateLimit-Policy", "RateLimit");

    private JsonNode document;

    @BeforeEach
    void fetchTheDocument() {
        assumeFalse("none".equalsIgnoreCase(openApiPath()), OPEN_API_PATH_PROPERTY + "=none: the server publishes no document");
        Reply reply = server.anonymous().withHeader("Accept", "application/json").get(openApiPath()).assertStatus(200);
        try {
            document = JSON.readTree(reply.body());
        } catch (IOException e) {
            throw new UncheckedIOException("the document served as JSON is not JSON: " + reply, e);
        }
    }

    @Test
    void theDocumentParsesAndValidatesWithoutErrorsOrWarningsAsJsonAndAsYaml() {
        String json = server.anonymous().withHeader("Accept", "application/json").get(openApiPath()).assertStatus(200).body();
        String yaml = server.anonymous().get(openApiPath()).assertStatus(200).body();
        assertThat(yaml).as("the default format is YAML").doesNotStartWith("{");
        assertThat(validationMessages(json)).as("swagger-parser on the JSON document").isEmpty();
        assertThat(validationMessages(yaml)).as("swagger-parser on the YAML document").isEmpty();
    }

    @Test
    void theDocumentHasEveryOperationOfTheExample() {
        for (String[] op : new String[][] {{"get", TODOS}, {"post", TODOS}, {"get", TODOS + "/{id}"},
                {"delete", TODOS + "/{id}"}, {"get", EXPORT}, {"get", REPORT}, {"post", IMPORT},
                {"post", TODOS + "/{id}/share"}, {"post", "/partner/inbox"}, {"post", LoginProtectionIT.LOGIN}}) {
            JsonNode operation = operation(op[0], op[1]);
            assertThat(fieldNames(operation.path("responses"))).as("responses of %s %s", op[0], op[1]).isNotEmpty();
        }
    }

    @Test
    void listingTodosStatesItsLimitAndDocumentsThe429AndTheHeaders() {
        JsonNode list = operation("get", TODOS);
        assertThat(limits(list)).containsExactly("default 3/60s TRANSPORT");
        assertThat(list.path("description").asText()).contains("\"default\" allows 3 requests per 60 seconds");
        assertThat(list.at("/x-ratelimit/0/algorithm").asText()).isEqualTo("SLIDING_WINDOW");
        assertThat(list.at("/x-ratelimit/0/cost").asInt()).isEqualTo(1);
        assertThat(list.at("/x-ratelimit/0/mode").asText()).isEqualTo("enforce");

        JsonNode tooMany = resolve(list.at("/responses/429"));
        assertThat(tooMany.isMissingNode()).as("GET /todos documents a 429: %s", list).isFalse();
        JsonNode problem = resolve(tooMany.at("/content/application~1problem+json/schema"));
        assertThat(fieldNames(problem.path("properties")))
                .contains("type", "title", "status", "detail", "violated-policies");
        List<String> on429 = new ArrayList<>(RATE_LIMIT_HEADERS);
        on429.add("Retry-After");
        assertDescribedHeaders(tooMany, on429);
        List<String> others = fieldNames(list.path("responses")).stream().filter(code -> !code.equals("429")).toList();
        assertThat(others).as("the responses of GET /todos besides the 429: 200, or \"default\" as Payara writes it")
                .isNotEmpty();
        for (String code : others) {
            assertDescribedHeaders(resolve(list.path("responses").path(code)), RATE_LIMIT_HEADERS);
        }
    }

    @Test
    void listingTodosShowsTheGoldPlansTenAMinute() {
        JsonNode list = operation("get", TODOS);
        assertThat(list.at("/x-ratelimit/0/plans/gold/permitLimit").asInt()).as("%s", list.path("x-ratelimit")).isEqualTo(10);
        assertThat(list.at("/x-ratelimit/0/plans/gold/windowSeconds").asInt()).as("%s", list.path("x-ratelimit")).isEqualTo(60);
        assertThat(fieldNames(list.at("/x-ratelimit/0/plans"))).containsExactly("gold");
        assertThat(list.at("/x-ratelimit/0/permitLimit").asInt()).as("callers in no plan keep 3").isEqualTo(3);
        assertThat(list.path("description").asText())
                .contains("\"default\" allows 3 requests per 60 seconds (plan \"gold\": 10 per 60 seconds)");
    }

    @Test
    void theReportShowsItsLimitWithACostOfFour() {
        JsonNode report = operation("get", REPORT);
        assertThat(limits(report)).containsExactly("reports 10/60s TRANSPORT");
        assertThat(report.at("/x-ratelimit/0/cost").asInt()).as("%s", report.path("x-ratelimit")).isEqualTo(4);
        assertThat(report.at("/x-ratelimit/0/algorithm").asText()).isEqualTo("SLIDING_WINDOW");
        assertThat(report.path("description").asText()).contains("\"reports\" allows 10 permits per 60 seconds",
                "Each call costs 4 permits");
        assertThat(resolve(report.at("/responses/429")).isMissingNode()).as("GET /todos/report documents a 429").isFalse();
    }

    @Test
    void importingIsCoveredByTheModuleLimit() {
        JsonNode importing = operation("post", IMPORT);
        assertThat(limits(importing)).containsExactly("module 100/60s TRANSPORT");
        assertThat(importing.at("/x-ratelimit/0/declaredOn").asText()).isEqualTo("module");
        assertThat(resolve(importing.at("/responses/429")).isMissingNode()).as("POST /todos/import documents a 429").isFalse();
    }

    @Test
    void theExportShowsTheModuleLimitOnlyAndNoPlanChangesIt() {
        // the "export" limit is a CDI bean's (not the resource method's), so the document cannot show it;
        // ratelimit.plans.gold.limits.export.mode=off changes nothing the document shows
        JsonNode export = operation("get", EXPORT);
        assertThat(limits(export)).containsExactly("module 100/60s TRANSPORT");
        assertThat(export.at("/x-ratelimit/0").has("plans")).as("%s", export.path("x-ratelimit")).isFalse();
    }

    @Test
    void creatingTodosListsBurstAndHourly() {
        JsonNode create = operation("post", TODOS);
        assertThat(limits(create)).containsExactly("burst 5/1s TRANSPORT", "hourly 500/3600s TRANSPORT");
        assertThat(create.at("/responses/429").isMissingNode()).isFalse();
        assertThat(fieldNames(create.path("responses"))).as("responses of POST /todos").contains("429").hasSizeGreaterThan(1);
        for (String code : fieldNames(create.path("responses"))) {
            assertDescribedHeaders(resolve(create.path("responses").path(code)), RATE_LIMIT_HEADERS);
        }
    }

    @Test
    void sharingIsCoveredByTheModuleLimitAndDocumentsThe429() {
        // the "partner" limit is the Rest Client's (not the resource method's), so the document cannot show it; its
        // refusal is the 429 documented for the operation
        JsonNode share = operation("post", TODOS + "/{id}/share");
        assertThat(limits(share)).containsExactly("module 100/60s TRANSPORT");
        assertThat(fieldNames(share.path("responses"))).as("responses of POST /todos/{id}/share").contains("204", "404", "429");
    }

    @Test
    void thePartnersInboxListsItsLimitOfTheWholeApplication() {
        JsonNode inbox = operation("post", "/partner/inbox");
        assertThat(limits(inbox)).containsExactly("inbox 600/60s TRANSPORT");
        assertThat(fieldNames(inbox.path("responses"))).as("responses of POST /partner/inbox").contains("204", "400", "429");
    }

    @Test
    void theLogInDocumentsItsAnswersAndSaysIts429CountsOnlyFailuresByAddressAndByAccount() {
        JsonNode login = operation("post", LoginProtectionIT.LOGIN);
        assertThat(limits(login)).containsExactly("login-address 5/900s TRANSPORT", "login-account 10/3600s TRANSPORT");
        assertThat(fieldNames(login.path("responses"))).as("responses of POST /login").contains("200", "400", "401", "429");
        assertThat(login.at("/x-ratelimit/0/per").asText()).isEqualTo("ADDRESS");
        assertThat(login.at("/x-ratelimit/0/failuresOnly").asBoolean()).isTrue();
        assertThat(login.at("/x-ratelimit/0/failureStatuses").asText()).isEqualTo("400-599");
        assertThat(login.at("/x-ratelimit/1/per").asText()).isEqualTo("ARGUMENT");
        assertThat(login.path("description").asText()).contains("\"login-address\" allows 5 failed requests per 900 "
                + "seconds, per client address");
        JsonNode tooMany = resolve(login.at("/responses/429"));
        assertThat(tooMany.path("description").asText()).as("the 429 of POST /login")
                .contains("\"login-address\" counts only failed requests").contains("per client address")
                .contains("\"login-account\" counts only failed requests").contains("per key the request names");
        List<String> on429 = new ArrayList<>(RATE_LIMIT_HEADERS);
        on429.add("Retry-After");
        assertDescribedHeaders(tooMany, on429);
    }

    @Test
    void readingOneTodoListsTheModuleLimit() {
        assertThat(limits(operation("get", TODOS + "/{id}"))).containsExactly("module 100/60s TRANSPORT");
    }

    @Test
    void deletingATodoListsItsPrincipalScopedLimit() {
        assertThat(limits(operation("delete", TODOS + "/{id}"))).containsExactly("delete 2/60s PRINCIPAL");
    }

    @Test
    void noOperationPublishesTheGlobalLimit() {
        assertThat(fieldNames(document.path("paths"))).as("the document's paths").isNotEmpty();
        int items = 0;
        for (JsonNode path : document.path("paths")) {
            for (JsonNode operation : path) {
                for (JsonNode limit : operation.path("x-ratelimit")) {
                    items++;
                    assertThat(limit.path("name").asText()).as("%s", operation).isNotBlank().isNotEqualTo(GLOBAL);
                }
            }
        }
        // GET/POST /todos, GET/DELETE /todos/{id}, export, report, import: one limit each, two on POST /todos
        assertThat(items).as("x-ratelimit items in the document").isGreaterThanOrEqualTo(8);
    }

    static String openApiPath() {
        String path = System.getProperty(OPEN_API_PATH_PROPERTY);
        return path == null || path.isBlank() ? "/openapi" : path.trim();
    }

    /**
     * The operation of {@code path} as the document names it; a runtime may put a prefix (a context root) in
     * front of the application's paths.
     */
    private JsonNode operation(String method, String path) {
        for (String documented : fieldNames(document.path("paths"))) {
            if (documented.equals(path) || documented.endsWith(path)) {
                JsonNode operation = document.path("paths").path(documented).path(method);
                if (!operation.isMissingNode()) {
                    return operation;
                }
            }
        }
        throw new AssertionError(method.toUpperCase() + " " + path + " is not in the document: " + fieldNames(document.path("paths")));
    }

    /** The {@code x-ratelimit} items as {@code name permitLimit/windowSeconds SCOPE}; fails when there is none. */
    private static List<String> limits(JsonNode operation) {
        assertThat(operation.path("x-ratelimit").isArray()).as("x-ratelimit of %s", operation).isTrue();
        List<String> limits = new ArrayList<>();
        for (JsonNode item : operation.path("x-ratelimit")) {
            limits.add(item.path("name").asText() + " " + item.path("permitLimit").asInt() + "/"
                    + item.path("windowSeconds").asInt() + "s " + item.path("scope").asText());
        }
        return limits;
    }

    private void assertDescribedHeaders(JsonNode response, List<String> names) {
        JsonNode headers = response.path("headers");
        for (String name : names) {
            JsonNode header = resolve(headers.path(name));
            assertThat(header.isMissingNode()).as("header %s in %s", name, response).isFalse();
            assertThat(header.path("description").asText()).as("description of %s", name).isNotBlank();
            assertThat(resolve(header.path("schema")).path("type").asText()).as("type of %s", name).isIn("integer", "string");
        }
    }

    /** A local {@code $ref} followed to what it names. */
    private JsonNode resolve(JsonNode node) {
        JsonNode current = node;
        for (int i = 0; i < 10 && current.has("$ref"); i++) {
            String ref = current.path("$ref").asText();
            assertThat(ref).as("a local reference").startsWith("#/");
            current = document.at(ref.substring(1));
        }
        return current;
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        return names;
    }

    private static List<String> validationMessages(String document) {
        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        SwaggerParseResult result = new OpenAPIParser().readContents(document, null, options);
        assertThat(result.getOpenAPI()).as("parsed: %s", result.getMessages()).isNotNull();
        return result.getMessages() == null ? List.of()
                : result.getMessages().stream().filter(m -> !RUNTIME_ADDITIONS.contains(m)).toList();
    }
}
