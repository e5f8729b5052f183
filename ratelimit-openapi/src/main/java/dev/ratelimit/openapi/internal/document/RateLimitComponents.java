package dev.ratelimit.openapi.internal.document;

import dev.ratelimit.core.headers.RateLimitHeaders;
import dev.ratelimit.core.headers.RateLimitProblem;
import java.math.BigDecimal;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.models.Components;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.headers.Header;
import org.eclipse.microprofile.openapi.models.media.Schema.SchemaType;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;

/**
 * What a refusal and the rate-limit headers look like, as components of the document that limited operations refer
 * to: the {@code RateLimit-*} headers and Retry-After (each described with its unit), the RFC 9457 problem body, and
 * the shared 429 response that carries them.
 *
 * <p>Not API.
 */
final class RateLimitComponents {

    static final String PROBLEM_SCHEMA = "RateLimitProblem";
    static final String TOO_MANY_REQUESTS_RESPONSE = "RateLimitTooManyRequests";
    static final String TOO_MANY_REQUESTS_DESCRIPTION = "Too Many Requests: a rate limit of this operation is "
            + "exhausted for this client. Retry after the number of seconds in Retry-After; the body names the refusing "
            + "limits.";

    static final String RESPONSES_REF = "#/components/responses/";
    static final String HEADERS_REF = "#/components/headers/";
    private static final String SCHEMAS_REF = "#/components/schemas/";

    /** Header name to its component's name, in order; every response of a limited operation may carry these. */
    static final Map<String, String> RESPONSE_HEADERS;
    /** Retry-After's component has a name of its own: an application may document a Retry-After of its own (503). */
    static final String RETRY_AFTER_COMPONENT = "RateLimit-Retry-After";

    static {
        Map<String, String> headers = new LinkedHashMap<>();
        for (String header : List.of(RateLimitHeaders.LIMIT, RateLimitHeaders.REMAINING, RateLimitHeaders.RESET,
                RateLimitHeaders.POLICY, RateLimitHeaders.RATELIMIT)) {
            headers.put(header, header);
        }
        RESPONSE_HEADERS = Collections.unmodifiableMap(headers);
    }

    private RateLimitComponents() {
    }

    /** Adds the components to {@code document} (again: the same values, in place of those of an earlier run). */
    static void addTo(OpenAPI document) {
        Components components = document.getComponents();
        if (components == null) {
            components = OASFactory.createComponents();
            document.setComponents(components);
        }
        components.addSchema(PROBLEM_SCHEMA, problemSchema());
        components.addHeader(RateLimitHeaders.LIMIT, header(integer(1),
                "Permits per window of the limit this response reports on: the last of the operation's enforced "
                        + "limits, or, on a 429, the limit that refused the request. A request spends one permit, or "
                        + "the cost its operation states. Unit: permits (requests, at a cost of 1)."));
        components.addHeader(RateLimitHeaders.REMAINING, header(integer(0),
                "Permits this client may still spend in that limit's current window; 0 on a 429. "
                        + "Unit: permits (requests, at a cost of 1)."));
        components.addHeader(RateLimitHeaders.RESET, header(integer(1),
                "Seconds until that limit's oldest spent permit returns (token bucket: until the bucket is full "
                        + "again); on a 429, the same as Retry-After. Unit: seconds, rounded up, at least 1."));
        components.addHeader(RateLimitHeaders.POLICY, header(string(),
                "Every enforced limit of the operation, as an RFC 8941 list of \"<name>\";q=<permits per window>;"
                        + "w=<window in seconds>, for example \"burst\";q=5;w=1, \"hourly\";q=500;w=3600, in the "
                        + "values of the caller's plan. On a 429 the refusing limit is listed last. Units: q in "
                        + "permits (requests, at a cost of 1), w in seconds."));
        components.addHeader(RateLimitHeaders.RATELIMIT, header(string(),
                "The state of every enforced limit, as an RFC 8941 list of \"<name>\";r=<permits remaining>;"
                        + "t=<seconds until a permit returns>, for example \"burst\";r=4;t=1. "
                        + "On a 429 the refusing limit is listed last, with r=0. Units: r in permits, t in seconds."));
        components.addHeader(RETRY_AFTER_COMPONENT, header(integer(1),
                "Seconds to wait before the request would be allowed (the longest wait among the refusing "
                        + "limits). Unit: seconds, rounded up, at least 1."));
        components.addResponse(TOO_MANY_REQUESTS_RESPONSE, tooManyRequests(TOO_MANY_REQUESTS_DESCRIPTION));
    }

    /** A 429 with {@code description}: the problem body, every rate-limit header and Retry-After, by reference. */
    static APIResponse tooManyRequests(String description) {
        Map<String, Header> headers = new LinkedHashMap<>();
        for (Map.Entry<String, String> header : RESPONSE_HEADERS.entrySet()) {
            headers.put(header.getKey(), OASFactory.createHeader().ref(HEADERS_REF + header.getValue()));
        }
        headers.put(RateLimitHeaders.RETRY_AFTER, OASFactory.createHeader().ref(HEADERS_REF + RETRY_AFTER_COMPONENT));
        return OASFactory.createAPIResponse()
                .description(description)
                .headers(headers)
                .content(OASFactory.createContent().addMediaType(RateLimitProblem.MEDIA_TYPE,
                        OASFactory.createMediaType().schema(OASFactory.createSchema().ref(SCHEMAS_REF + PROBLEM_SCHEMA))));
    }

    private static Schema problemSchema() {
        Schema schema = SchemaTypes.typed(OASFactory.createSchema(), SchemaType.OBJECT)
                .description("RFC 9457 problem details of a request refused by a rate limit.");
        schema.addProperty("type", string().format("uri")
                .description("The problem type: " + RateLimitProblem.TYPE + "."));
        schema.addProperty("title", string().description("\"Too Many Requests\"."));
        schema.addProperty("status", integer(null).format("int32").description("429."));
        schema.addProperty("detail", string().description("What happened, for a person to read."));
        schema.addProperty("violated-policies", SchemaTypes.typed(OASFactory.createSchema(), SchemaType.ARRAY)
                .items(string())
                .description("The names of the limits that refused the request, as RateLimit-Policy names them."));
        schema.setRequired(List.of("type", "title", "status", "detail", "violated-policies"));
        return schema;
    }

    private static Header header(Schema schema, String description) {
        return OASFactory.createHeader().description(description).schema(schema);
    }

    private static Schema string() {
        return SchemaTypes.typed(OASFactory.createSchema(), SchemaType.STRING);
    }

    private static Schema integer(Integer minimum) {
        Schema schema = SchemaTypes.typed(OASFactory.createSchema(), SchemaType.INTEGER);
        return minimum == null ? schema : schema.minimum(BigDecimal.valueOf(minimum));
    }
}
