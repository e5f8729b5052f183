package dev.ratelimit.tck;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratelimit.tck.support.Caller;
import dev.ratelimit.tck.support.PartnerTraffic;
import dev.ratelimit.tck.support.Reply;
import dev.ratelimit.tck.support.ServerUnderTest;
import io.swagger.parser.OpenAPIParser;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * Every response the example returns is documented in the OpenAPI document it publishes, so that a
 * validating proxy (Prism: {@code prism proxy openapi.json <server> --errors}) finds nothing undocumented. The
 * example is driven through each status it answers, on partitions of its own, and each answer is checked as
 * such a proxy checks it: the operation (method and path template) is in the document; the status is one of
 * its responses (the code, its {@code 4XX} range, or {@code default}); the media type of the body is one of
 * that response's; a JSON body has the documented shape (types, required members, items); every rate-limit
 * header the answer carried is declared on that response, and its value fits the declared schema; every
 * header the response declares required was sent.
 */
class OpenApiResponsesTest extends TckTestBase {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> RATE_LIMIT_FIELDS = List.of("RateLimit-Limit", "RateLimit-Remaining",
            "RateLimit-Reset", "RateLimit-Policy", "RateLimit", "Retry-After");
    private static final String TODO_BY_ID = TODOS + "/{id}";
    static final String SHARE = TODOS + "/{id}/share";
    static final String INBOX = "/partner/inbox";

    /** The document as the server serves it, read once per server; guarded by the class. */
    private static OpenAPI document;
    private static String documentOf;

    @BeforeEach
    void fetchTheDocument() {
        String path = OpenApiDocumentTest.openApiPath();
        assumeFalse("none".equalsIgnoreCase(path), OpenApiDocumentTest.OPEN_API_PATH_PROPERTY
                + "=none: the server publishes no document");
        load(server);
    }

    /**
     * For the other classes of the suite: fails unless {@code reply} is documented as {@code method template} (as a
     * validating proxy checks it); nothing to check when the server publishes no document.
     */
    static void assertDocumentedOn(ServerUnderTest server, String method, String template, Reply reply) {
        if ("none".equalsIgnoreCase(OpenApiDocumentTest.openApiPath())) {
            return;
        }
        load(server);
        assertDocumented(method, template, reply);
    }

    /** Reads the document as the server serves it, once per server. */
    private static synchronized void load(ServerUnderTest server) {
        String path = OpenApiDocumentTest.openApiPath();
        String of = server.resolve(path).toString();
        if (document == null || !of.equals(documentOf)) {
            String json = server.anonymous().withHeader("Accept", "application/json").get(path).assertStatus(200).body();
            ParseOptions options = new ParseOptions();
            options.setResolve(true);
            options.setResolveFully(true); // every $ref inlined: a response, its headers and schemas as a client sees them
            SwaggerParseResult result = new OpenAPIParser().readContents(json, null, options);
            assertThat(result.getOpenAPI()).as("the document parses: %s", result.getMessages()).isNotNull();
            assertThat(result.getOpenAPI().getPaths()).as("the document's paths").isNotEmpty();
            document = result.getOpenAPI();
            documentOf = of;
        }
    }

    @Test
    void everyGetAnswers200AsDocumented() {
        Caller caller = server.withFreshKey();
        String todo = createTodoElsewhere();
        assertDocumented("GET", TODOS, caller.get(TODOS).assertStatus(200));
        assertDocumented("GET", TODO_BY_ID, caller.get(todo).assertStatus(200));
        assertDocumented("GET", EXPORT, caller.get(EXPORT).assertStatus(200));
        assertDocumented("GET", OpenApiDocumentTest.REPORT, caller.get(OpenApiDocumentTest.REPORT).assertStatus(200));
    }

    @Test
    void creatingAndImportingAnswer201AsDocumented() {
        Caller caller = server.withFreshKey();
        Reply created = caller.createTodo(uniqueTitle()).assertStatus(201);
        assertThat(created.header("Location")).as("Location of %s", created).isPresent();
        assertDocumented("POST", TODOS, created);
        Reply imported = caller.postJson(OpenApiDocumentTest.IMPORT,
                "[{\"title\": \"" + uniqueTitle() + "\"}, {\"title\": \"" + uniqueTitle() + "\"}]").assertStatus(201);
        assertDocumented("POST", OpenApiDocumentTest.IMPORT, imported);
    }

    @Test
    void deletingAnswers204AsDocumented() {
        String todo = createTodoElsewhere();
        assertDocumented("DELETE", TODO_BY_ID, server.asFreshUser().delete(todo).assertStatus(204));
    }

    @Test
    void sharingAnswers204AsDocumented() {
        String todo = createTodoElsewhere();
        Reply shared = PartnerTraffic.send(() -> server.withFreshKey().post(todo + "/share"));
        assertDocumented("POST", SHARE, shared.assertStatus(204));
    }

    @Test
    void thePartnersInboxAnswers204And400AsDocumented() {
        Caller caller = server.withFreshKey();
        assertDocumented("POST", INBOX, caller.postJson(INBOX, "{\"id\": 1, \"title\": \"" + uniqueTitle()
                + "\", \"done\": false}").assertStatus(204));
        assertDocumented("POST", INBOX, caller.postJson(INBOX, "{\"id\": 1}").assertStatus(400));
        assertDocumented("POST", INBOX, caller.postJson(INBOX, "{\"title\": ").assertStatus(400));
    }

    @Test
    void bodiesThatDoNotBindAnswer400AsDocumented() {
        Caller caller = server.withFreshKey();
        // JSON cut short, and an array where the todo object belongs
        assertDocumented("POST", TODOS, caller.postJson(TODOS, "{\"title\": ").assertStatus(400));
        assertDocumented("POST", TODOS, caller.postJson(TODOS, "[{\"title\": \"" + uniqueTitle() + "\"}]").assertStatus(400));
    }

    @Test
    void anEmptyImportAnswers400AsDocumented() {
        assertDocumented("POST", OpenApiDocumentTest.IMPORT,
                server.withFreshKey().postJson(OpenApiDocumentTest.IMPORT, "[]").assertStatus(400));
    }

    @Test
    void deletingWithoutACallerAnswers401AsDocumented() {
        String todo = createTodoElsewhere();
        Reply unauthorized = server.withFreshKey().delete(todo).assertStatus(401);
        assertDocumented("DELETE", TODO_BY_ID, unauthorized);
    }

    @Test
    void unknownIdsAnswer404AsDocumented() {
        assertDocumented("GET", TODO_BY_ID, server.withFreshKey().get(MISSING_TODO).assertStatus(404));
        assertDocumented("DELETE", TODO_BY_ID, server.asFreshUser().delete(MISSING_TODO).assertStatus(404));
        assertDocumented("POST", SHARE, server.withFreshKey().post(MISSING_TODO + "/share").assertStatus(404));
    }

    @Test
    void duplicateTitlesAnswer409AsDocumented() {
        Caller caller = server.withFreshKey();
        String title = uniqueTitle();
        caller.createTodo(title).assertStatus(201);
        assertDocumented("POST", TODOS, caller.createTodo(title).assertStatus(409));
        assertDocumented("POST", OpenApiDocumentTest.IMPORT,
                caller.postJson(OpenApiDocumentTest.IMPORT, "[{\"title\": \"" + title + "\"}]").assertStatus(409));
    }

    @Test
    void refusalsAnswer429AsDocumented() {
        Caller caller = server.withFreshKey();
        for (int i = 0; i < 3; i++) {
            caller.get(TODOS).assertStatus(200);
        }
        assertDocumented("GET", TODOS, caller.get(TODOS).assertRefusedBy(DEFAULT));
        // cost 4 of 10: two reports, the third refused
        caller.get(OpenApiDocumentTest.REPORT).assertStatus(200);
        caller.get(OpenApiDocumentTest.REPORT).assertStatus(200);
        assertDocumented("GET", OpenApiDocumentTest.REPORT, caller.get(OpenApiDocumentTest.REPORT).assertRefusedBy("reports"));
        // the export bean's own limit, one per 10 s, refuses inside the resource method
        caller.get(EXPORT).assertStatus(200);
        assertDocumented("GET", EXPORT, caller.get(EXPORT).assertRefusedBy(EXPORT_LIMIT));
    }

    @Test
    void theAdminApiAnswersAsDocumented() {
        String limits = AdminTest.ADMIN + "/limits";
        String count = AdminTest.ADMIN + "/limits/{name}/partitions/{partition}";
        String refused = AdminTest.ADMIN + "/limits/{name}/refused";
        String key = "X-Api-Key:" + uniqueTitle();
        assertDocumented("GET", limits, server.as("ops:admin").get(limits).assertStatus(200));
        assertDocumented("GET", limits, server.anonymous().get(limits).assertStatus(401));
        assertDocumented("GET", limits, server.as("bob").get(limits).assertStatus(403));
        String one = AdminTest.ADMIN + "/limits/default/partitions/" + key;
        assertDocumented("GET", count, server.as("ops:admin").get(one).assertStatus(200));
        assertDocumented("DELETE", count, server.as("ops:admin").delete(one).assertStatus(204));
        assertDocumented("GET", count, server.as("ops:admin").get(AdminTest.ADMIN + "/limits/nope/partitions/" + key)
                .assertStatus(404));
        assertDocumented("DELETE", count, server.as("bob").delete(one).assertStatus(403));
        assertDocumented("GET", refused, server.as("ops:admin").get(AdminTest.ADMIN + "/limits/default/refused?top=3")
                .assertStatus(200));
        assertDocumented("GET", refused, server.as("ops:admin").get(AdminTest.ADMIN + "/limits/default/refused?top=x")
                .assertStatus(400));
        assertDocumented("GET", refused, server.as("ops:admin").get(AdminTest.ADMIN + "/limits/nope/refused")
                .assertStatus(404));
    }

    @Test
    void theDocumentedShapesThatTheseChecksValidateAgainstAreThere() {
        // so that a document whose schemas did not parse cannot pass the checks above by having nothing to check
        Schema<?> problem = response(operation("GET", TODOS), "429").getContent().get("application/problem+json").getSchema();
        assertThat(types(problem)).containsExactly("object");
        assertThat(problem.getRequired()).contains("type", "title", "status", "detail", "violated-policies");
        Schema<?> list = mediaType(response(operation("GET", TODOS), "200"), "application/json").getSchema();
        assertThat(types(list)).containsExactly("array");
        assertThat(list.getItems().getProperties()).containsKeys("id", "title", "done");
        assertThat(types(response(operation("GET", TODOS), "200").getHeaders().get("RateLimit-Remaining").getSchema()))
                .containsExactly("integer");
    }

    // ---- what a validating proxy checks

    private static void assertDocumented(String method, String template, Reply reply) {
        List<String> violations = violations(method, template, reply);
        assertThat(violations).as("what a validating proxy reports for %s (documented as %s %s)", reply, method, template)
                .isEmpty();
    }

    private static List<String> violations(String method, String template, Reply reply) {
        List<String> violations = new ArrayList<>();
        Operation operation = operation(method, template);
        if (operation == null) {
            violations.add(method + " " + template + " is not in the document (paths: " + document.getPaths().keySet() + ")");
            return violations;
        }
        String code = Integer.toString(reply.status());
        ApiResponse response = response(operation, code);
        if (response == null) {
            violations.add("status " + code + " is not documented for " + method + " " + template + " (documented: "
                    + (operation.getResponses() == null ? "none" : operation.getResponses().keySet()) + ")");
            return violations;
        }
        String contentType = reply.header("Content-Type").map(t -> t.split(";")[0].trim().toLowerCase(Locale.ROOT))
                .orElse(null);
        boolean hasBody = reply.body() != null && !reply.body().isEmpty();
        if (hasBody || contentType != null) {
            MediaType documented = mediaType(response, contentType);
            if (documented == null) {
                violations.add("the response's media type " + contentType + " is not documented for " + code + " (documented: "
                        + (response.getContent() == null ? "none" : response.getContent().keySet()) + ")");
            } else if (hasBody && isJson(contentType) && documented.getSchema() != null) {
                JsonNode body;
                try {
                    body = JSON.readTree(reply.body());
                    validate(body, documented.getSchema(), "body", violations);
                } catch (IOException e) {
                    violations.add("the " + contentType + " body is not JSON: " + e.getMessage());
                }
            }
        }
        Map<String, Header> headers = response.getHeaders() == null ? Map.of() : response.getHeaders();
        for (String name : RATE_LIMIT_FIELDS) {
            String value = reply.header(name).orElse(null);
            if (value == null) {
                continue;
            }
            Header header = find(headers, name);
            if (header == null) {
                violations.add("the response carried " + name + " but " + code + " does not declare it (declared: "
                        + headers.keySet() + ")");
            } else {
                validateHeader(name, value, header.getSchema(), violations);
            }
        }
        headers.forEach((name, header) -> {
            if (Boolean.TRUE.equals(header.getRequired()) && reply.header(name).isEmpty()) {
                violations.add("the required header " + name + " of " + code + " was not sent");
            }
        });
        return violations;
    }

    /** The operation of {@code template}; a runtime may put a prefix (a context root) in front of the paths. */
    private static Operation operation(String method, String template) {
        for (Map.Entry<String, PathItem> path : document.getPaths().entrySet()) {
            if (path.getKey().equals(template) || path.getKey().endsWith(template)) {
                Operation operation = path.getValue().readOperationsMap()
                        .get(PathItem.HttpMethod.valueOf(method.toUpperCase(Locale.ROOT)));
                if (operation != null) {
                    return operation;
                }
            }
        }
        return null;
    }

    /** As OpenAPI matches a status: the code, then its range ({@code 4XX}), then {@code default}. */
    private static ApiResponse response(Operation operation, String code) {
        if (operation.getResponses() == null) {
            return null;
        }
        for (String key : List.of(code, code.charAt(0) + "XX", code.charAt(0) + "xx", "default")) {
            ApiResponse response = operation.getResponses().get(key);
            if (response != null) {
                return response;
            }
        }
        return null;
    }

    /** The documented media type that {@code type} is: the same, or a wildcard ({@code text/*}, {@code *}{@code /*}). */
    private static MediaType mediaType(ApiResponse response, String type) {
        if (response.getContent() == null || type == null) {
            return null;
        }
        for (Map.Entry<String, MediaType> entry : response.getContent().entrySet()) {
            String documented = entry.getKey().split(";")[0].trim().toLowerCase(Locale.ROOT);
            if (documented.equals(type) || documented.equals("*/*")
                    || (documented.endsWith("/*") && type.startsWith(documented.substring(0, documented.length() - 1)))) {
                return entry.getValue();
            }
        }
        return null;
    }

    private static boolean isJson(String type) {
        return type.equals("application/json") || type.endsWith("+json");
    }

    private static Header find(Map<String, Header> headers, String name) {
        for (Map.Entry<String, Header> header : headers.entrySet()) {
            if (header.getKey().equalsIgnoreCase(name)) {
                return header.getValue();
            }
        }
        return null;
    }

    private static void validateHeader(String name, String value, Schema<?> schema, List<String> violations) {
        if (schema == null) {
            return;
        }
        Set<String> types = types(schema);
        if (types.contains("integer")) {
            try {
                long parsed = Long.parseLong(value.trim());
                if (schema.getMinimum() != null && BigDecimal.valueOf(parsed).compareTo(schema.getMinimum()) < 0) {
                    violations.add(name + ": " + value + " is below the documented minimum " + schema.getMinimum());
                }
            } catch (NumberFormatException e) {
                violations.add(name + ": \"" + value + "\" is not the documented integer");
            }
        }
    }

    /** A JSON value against its documented schema: types, required members, properties and items. */
    private static void validate(JsonNode value, Schema<?> schema, String where, List<String> violations) {
        if (schema == null) {
            return;
        }
        Set<String> types = types(schema);
        if (!types.isEmpty() && types.stream().noneMatch(type -> is(value, type))) {
            violations.add(where + ": " + value.getNodeType().name().toLowerCase(Locale.ROOT) + " where the document says "
                    + types);
            return;
        }
        if (value.isObject()) {
            if (schema.getRequired() != null) {
                for (String required : schema.getRequired()) {
                    if (!value.has(required)) {
                        violations.add(where + ": no \"" + required + "\", which the document requires");
                    }
                }
            }
            if (schema.getProperties() != null) {
                for (Map.Entry<String, Schema> property : schema.getProperties().entrySet()) {
                    if (value.has(property.getKey())) {
                        validate(value.get(property.getKey()), property.getValue(), where + "." + property.getKey(), violations);
                    }
                }
                if (Boolean.FALSE.equals(schema.getAdditionalProperties())) {
                    for (Iterator<String> names = value.fieldNames(); names.hasNext(); ) {
                        String name = names.next();
                        if (!schema.getProperties().containsKey(name)) {
                            violations.add(where + ": \"" + name + "\" is not a documented member");
                        }
                    }
                }
            }
        } else if (value.isArray() && schema.getItems() != null) {
            for (int i = 0; i < value.size(); i++) {
                validate(value.get(i), schema.getItems(), where + "[" + i + "]", violations);
            }
        }
    }

    /** {@code type} as OpenAPI 3.0 ({@code "type": "x"}) and 3.1 ({@code "type": ["x", "null"]}) write it. */
    private static Set<String> types(Schema<?> schema) {
        if (schema.getTypes() != null && !schema.getTypes().isEmpty()) {
            return schema.getTypes();
        }
        return schema.getType() == null ? Set.of() : Set.of(schema.getType());
    }

    private static boolean is(JsonNode value, String type) {
        return switch (type) {
            case "object" -> value.isObject();
            case "array" -> value.isArray();
            case "string" -> value.isTextual();
            case "integer" -> value.isIntegralNumber();
            case "number" -> value.isNumber();
            case "boolean" -> value.isBoolean();
            case "null" -> value.isNull();
            default -> true;
        };
    }
}
