package dev.ratelimit.openapi.internal.document;

import dev.ratelimit.core.config.AdminSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.PathItem;
import org.eclipse.microprofile.openapi.models.Paths;
import org.eclipse.microprofile.openapi.models.media.Content;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.media.Schema.SchemaType;
import org.eclipse.microprofile.openapi.models.parameters.Parameter;
import org.eclipse.microprofile.openapi.models.responses.APIResponses;

/**
 * The admin API (docs/operating-limits.md, "The admin API") in the OpenAPI document: its operations under
 * {@code ratelimit.admin.path} with every answer they give (200 or 204, 400, 401, 403, 404, 503), when it is enabled;
 * and never the resource class's own fixed path, which a runtime that scans the library would document if the class
 * did not hide its operations.
 */
public final class AdminDocumentation {

    private static final String JSON = "application/json";
    private static final String PROBLEM = "application/problem+json";

    private AdminDocumentation() {
    }

    /** Removes the fixed path; adds the admin operations when {@code admin} is enabled. */
    public static void document(OpenAPI openAPI, AdminSettings admin) {
        Paths paths = openAPI.getPaths();
        if (paths != null && paths.getPathItems() != null) {
            for (String path : new ArrayList<>(paths.getPathItems().keySet())) {
                if (internal(path)) {
                    paths.removePathItem(path);
                }
            }
        }
        if (!admin.enabled()) {
            return;
        }
        if (paths == null) {
            paths = OASFactory.createPaths();
            openAPI.setPaths(paths);
        }
        String base = admin.path();
        String role = " Needs an authenticated caller in the role \"" + admin.role() + "\"; counted by no rate limit.";
        paths.addPathItem(base + "/limits", OASFactory.createPathItem().GET(operation("ratelimitAdminLimits",
                "The effective rate limits: name, permit limit, window, algorithm, mode, plans, where declared." + role,
                List.of(), responses(ok("The limits in force.", limitsSchema()), false, false))));
        List<Parameter> count = List.of(path("name", "The limit name."),
                path("partition", "The caller's partition, as the partitioner makes it: X-Api-Key:abc, sub:bob, anonymous."),
                query("plan", "The caller's plan; none for callers in no plan."));
        paths.addPathItem(base + "/limits/{name}/partitions/{partition}", OASFactory.createPathItem()
                .GET(operation("ratelimitAdminCount", "One caller's count of one limit, read without spending." + role,
                        count, responses(ok("The count.", countSchema()), false, true)))
                .DELETE(operation("ratelimitAdminReset", "Starts one caller's count afresh: every permit back (with "
                        + "Redis, on every instance). Logged with the caller who asked." + role, count,
                        responses(OASFactory.createAPIResponse().description("The count starts afresh."), false, true)
                                .addAPIResponse("204", OASFactory.createAPIResponse().description("The count starts afresh.")))));
        paths.addPathItem(base + "/limits/{name}/refused", OASFactory.createPathItem().GET(operation(
                "ratelimitAdminRefused", "The partitions this limit refused most since this instance started, most "
                        + "first, each with its possible overcount (a bounded summary: every partition with more than "
                        + "1% of the refusals is listed)." + role,
                List.of(path("name", "The limit name."), query("top", "How many, 1-100; default 10.")),
                responses(ok("The most refused partitions.", refusedSchema()), true, true))));
        ((Operation) paths.getPathItem(base + "/limits/{name}/partitions/{partition}").getDELETE()).getResponses()
                .removeAPIResponse("200");
    }

    /** The fixed path, under whatever the document puts in front of it (an application path such as {@code /api}). */
    private static boolean internal(String path) {
        return path.endsWith(AdminSettings.INTERNAL_PATH) || path.contains(AdminSettings.INTERNAL_PATH + "/");
    }

    private static Operation operation(String id, String description, List<Parameter> parameters, APIResponses responses) {
        Operation operation = OASFactory.createOperation().operationId(id).description(description)
                .addTag("rate-limit admin").responses(responses);
        if (!parameters.isEmpty()) {
            operation.setParameters(new ArrayList<>(parameters));
        }
        return operation;
    }

    private static org.eclipse.microprofile.openapi.models.responses.APIResponse ok(String description, Schema schema) {
        return OASFactory.createAPIResponse().description(description)
                .content(OASFactory.createContent().addMediaType(JSON, OASFactory.createMediaType().schema(schema)));
    }

    private static APIResponses responses(org.eclipse.microprofile.openapi.models.responses.APIResponse ok,
                                          boolean badRequest, boolean notFound) {
        APIResponses responses = OASFactory.createAPIResponses().addAPIResponse("200", ok)
                .addAPIResponse("401", problem("No authenticated caller."))
                .addAPIResponse("403", problem("The caller lacks the admin role."));
        if (badRequest) {
            responses.addAPIResponse("400", problem("A malformed parameter."));
        }
        if (notFound) {
            responses.addAPIResponse("404", problem("No limit (or plan) of that name, or a limit that is off."));
            responses.addAPIResponse("503", problem("The store failed or did not answer in time."));
        }
        return responses;
    }

    private static org.eclipse.microprofile.openapi.models.responses.APIResponse problem(String description) {
        Content content = OASFactory.createContent().addMediaType(PROBLEM, OASFactory.createMediaType()
                .schema(object(Map.of("type", type(SchemaType.STRING), "title", type(SchemaType.STRING),
                        "status", type(SchemaType.INTEGER), "detail", type(SchemaType.STRING)))));
        return OASFactory.createAPIResponse().description(description).content(content);
    }

    private static Parameter path(String name, String description) {
        return OASFactory.createParameter().name(name).in(Parameter.In.PATH).required(true).description(description)
                .schema(type(SchemaType.STRING));
    }

    private static Parameter query(String name, String description) {
        return OASFactory.createParameter().name(name).in(Parameter.In.QUERY).required(false).description(description)
                .schema(type(SchemaType.STRING));
    }

    private static Schema limitsSchema() {
        Schema values = object(Map.of("permitLimit", type(SchemaType.INTEGER), "windowSeconds", type(SchemaType.INTEGER),
                "algorithm", type(SchemaType.STRING), "mode", type(SchemaType.STRING)));
        Schema limit = object(Map.of("name", type(SchemaType.STRING), "permitLimit", type(SchemaType.INTEGER),
                "windowSeconds", type(SchemaType.INTEGER), "algorithm", type(SchemaType.STRING),
                "mode", type(SchemaType.STRING),
                "plans", type(SchemaType.OBJECT).additionalPropertiesSchema(values),
                "declaredOn", type(SchemaType.ARRAY).items(type(SchemaType.STRING))));
        return object(Map.of("limits", type(SchemaType.ARRAY).items(limit)));
    }

    private static Schema countSchema() {
        return object(Map.of("limit", type(SchemaType.STRING), "partition", type(SchemaType.STRING),
                "plan", type(SchemaType.STRING), "permitLimit", type(SchemaType.INTEGER),
                "windowSeconds", type(SchemaType.INTEGER), "remaining", type(SchemaType.INTEGER),
                "resetSeconds", type(SchemaType.INTEGER), "inDebt", type(SchemaType.BOOLEAN),
                "debt", type(SchemaType.INTEGER)));
    }

    private static Schema refusedSchema() {
        Schema entry = object(Map.of("partition", type(SchemaType.STRING), "count", type(SchemaType.INTEGER),
                "overcount", type(SchemaType.INTEGER)));
        return object(Map.of("limit", type(SchemaType.STRING), "refused", type(SchemaType.ARRAY).items(entry)));
    }

    private static Schema object(Map<String, Schema> properties) {
        Schema schema = type(SchemaType.OBJECT);
        new java.util.TreeMap<>(properties).forEach(schema::addProperty);
        return schema;
    }

    private static Schema type(SchemaType type) {
        return SchemaTypes.typed(OASFactory.createSchema(), type);
    }
}
