package dev.ratelimit.openapi.internal.document;

import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitScope;
import dev.ratelimit.internal.resolve.ResolvedLimit;
import dev.ratelimit.jaxrs.RateLimitExceptionMapper;
import dev.ratelimit.jaxrs.internal.headers.RateLimitHeaders;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.models.Components;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.headers.Header;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.media.Schema.SchemaType;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;
import org.eclipse.microprofile.openapi.models.responses.APIResponses;

/**
 * What the document says about a limited operation (SPEC 4 and 9): the limits in force, in its
 * description and in {@value #EXTENSION}; a {@code 429} response with the problem body and every
 * rate-limit header; the {@code RateLimit-*} headers on its other responses. The shared parts are
 * components, referenced from each operation. Running it twice on one document changes nothing the
 * second time.
 */
public final class LimitDocumentation {

    /** The operation extension listing the limits in force. */
    public static final String EXTENSION = "x-ratelimit";

    static final String TOO_MANY_REQUESTS = "429";
    static final String PROBLEM_SCHEMA = "RateLimitProblem";
    static final String TOO_MANY_REQUESTS_RESPONSE = "RateLimitTooManyRequests";

    private static final String RESPONSES_REF = "#/components/responses/";
    private static final String HEADERS_REF = "#/components/headers/";
    private static final String SCHEMAS_REF = "#/components/schemas/";

    /** Header name to its component's name; every response of a limited operation may carry these. */
    private static final Map<String, String> RESPONSE_HEADERS = new LinkedHashMap<>();
    /** Retry-After's component has a name of its own: an application may document a Retry-After of its own (503). */
    private static final String RETRY_AFTER_COMPONENT = "RateLimit-Retry-After";

    static {
        for (String header : List.of(RateLimitHeaders.LIMIT, RateLimitHeaders.REMAINING, RateLimitHeaders.RESET,
                RateLimitHeaders.POLICY, RateLimitHeaders.RATELIMIT)) {
            RESPONSE_HEADERS.put(header, header);
        }
    }

    private final OpenAPI document;

    public LimitDocumentation(OpenAPI document) {
        this.document = document;
    }

    /** Documents one limited operation; adds the components on first use. */
    public void document(Operation operation, List<ResolvedLimit> limits) {
        addComponents();
        boolean first = operation.getExtensions() == null || !operation.getExtensions().containsKey(EXTENSION);
        operation.addExtension(EXTENSION, extension(limits));
        if (first) {
            String sentence = describe(limits);
            String description = operation.getDescription();
            operation.setDescription(description == null || description.isBlank() ? sentence
                    : description.strip() + "\n\n" + sentence);
        }
        APIResponses responses = operation.getResponses();
        if (responses == null) {
            responses = OASFactory.createAPIResponses();
            operation.setResponses(responses);
        }
        if (responses.getAPIResponse(TOO_MANY_REQUESTS) == null) {
            responses.addAPIResponse(TOO_MANY_REQUESTS, OASFactory.createAPIResponse()
                    .ref(RESPONSES_REF + TOO_MANY_REQUESTS_RESPONSE));
        }
        Map<String, APIResponse> all = responses.getAPIResponses();
        for (String code : new ArrayList<>(all.keySet())) {
            APIResponse response = all.get(code);
            if (isOurs(response)) {
                continue;
            }
            response = ownCopy(responses, code, response);
            if (response == null) {
                continue; // a reference outside this document: not ours to change
            }
            for (Map.Entry<String, String> header : RESPONSE_HEADERS.entrySet()) {
                addHeader(response, header.getKey(), header.getValue());
            }
            if (TOO_MANY_REQUESTS.equals(code)) {
                addHeader(response, RateLimitHeaders.RETRY_AFTER, RETRY_AFTER_COMPONENT);
            }
        }
    }

    /** The sentence a reader of the document sees: which limits, how many requests per how long. */
    static String describe(List<ResolvedLimit> limits) {
        StringBuilder text = new StringBuilder(limits.size() == 1 ? "Rate limit" : "Rate limits")
                .append(" (counted per client): ");
        for (int i = 0; i < limits.size(); i++) {
            RateLimitPolicy p = limits.get(i).policy();
            if (i > 0) {
                text.append("; ");
            }
            text.append('"').append(p.name()).append("\" allows ").append(p.permitLimit())
                    .append(p.permitLimit() == 1 ? " request" : " requests").append(" per ").append(p.windowSeconds())
                    .append(p.windowSeconds() == 1 ? " second" : " seconds");
            if (p.scope() == RateLimitScope.PRINCIPAL) {
                text.append(" (only requests that pass authorization count)");
            }
        }
        return text.append(". A request over a limit is answered 429 Too Many Requests with Retry-After; the ")
                .append("RateLimit headers of every response tell what is left.").toString();
    }

    private static List<Map<String, Object>> extension(List<ResolvedLimit> limits) {
        List<Map<String, Object>> items = new ArrayList<>();
        for (ResolvedLimit limit : limits) {
            RateLimitPolicy p = limit.policy();
            Map<String, Object> item = new LinkedHashMap<>();
            item.put("name", p.name());
            item.put("permitLimit", p.permitLimit());
            item.put("windowSeconds", p.windowSeconds());
            item.put("scope", p.scope().name());
            item.put("declaredOn", limit.level().name().toLowerCase(Locale.ROOT));
            items.add(item);
        }
        return items;
    }

    private static boolean isOurs(APIResponse response) {
        return (RESPONSES_REF + TOO_MANY_REQUESTS_RESPONSE).equals(response.getRef());
    }

    /**
     * The response to add headers to: itself, or, for a reference to a response component, a copy
     * of the component put in its place (the component may serve operations without limits).
     * Null for a reference that this document does not hold.
     */
    private APIResponse ownCopy(APIResponses responses, String code, APIResponse response) {
        String ref = response.getRef();
        if (ref == null) {
            return response;
        }
        Components components = document.getComponents();
        APIResponse target = ref.startsWith(RESPONSES_REF) && components != null && components.getResponses() != null
                ? components.getResponses().get(ref.substring(RESPONSES_REF.length())) : null;
        if (target == null || target.getRef() != null) {
            return null;
        }
        APIResponse copy = OASFactory.createAPIResponse()
                .description(target.getDescription())
                .content(target.getContent());
        if (target.getHeaders() != null) {
            copy.setHeaders(new LinkedHashMap<>(target.getHeaders()));
        }
        if (target.getLinks() != null) {
            copy.setLinks(new LinkedHashMap<>(target.getLinks()));
        }
        if (target.getExtensions() != null) {
            copy.setExtensions(new LinkedHashMap<>(target.getExtensions()));
        }
        responses.addAPIResponse(code, copy);
        return copy;
    }

    /** Adds a header by reference, unless the response documents one of that name itself. */
    private static void addHeader(APIResponse response, String name, String component) {
        if (response.getHeaders() != null) {
            for (String existing : response.getHeaders().keySet()) {
                if (existing.equalsIgnoreCase(name)) {
                    return;
                }
            }
        }
        response.addHeader(name, OASFactory.createHeader().ref(HEADERS_REF + component));
    }

    // ---- components

    private void addComponents() {
        Components components = document.getComponents();
        if (components == null) {
            components = OASFactory.createComponents();
            document.setComponents(components);
        }
        components.addSchema(PROBLEM_SCHEMA, problemSchema());
        components.addHeader(RateLimitHeaders.LIMIT, header(integer(1),
                "Requests per window of the limit this response reports on: the last of the operation's limits, or, "
                        + "on a 429, the limit that refused the request. Unit: requests."));
        components.addHeader(RateLimitHeaders.REMAINING, header(integer(0),
                "Requests this client may still make in that limit's current window; 0 on a 429. Unit: requests."));
        components.addHeader(RateLimitHeaders.RESET, header(integer(1),
                "Seconds until that limit's oldest counted request stops counting and frees a permit; on a 429, "
                        + "the same as Retry-After. Unit: seconds, rounded up, at least 1."));
        components.addHeader(RateLimitHeaders.POLICY, header(string(),
                "Every limit of the operation, as an RFC 8941 list of \"<name>\";q=<requests per window>;"
                        + "w=<window in seconds>, for example \"burst\";q=5;w=1, \"hourly\";q=500;w=3600. "
                        + "On a 429 the refusing limit is listed last. Units: q in requests, w in seconds."));
        components.addHeader(RateLimitHeaders.RATELIMIT, header(string(),
                "The state of every limit, as an RFC 8941 list of \"<name>\";r=<requests remaining>;"
                        + "t=<seconds until a permit returns>, for example \"burst\";r=4;t=1. "
                        + "On a 429 the refusing limit is listed last, with r=0. Units: r in requests, t in seconds."));
        components.addHeader(RETRY_AFTER_COMPONENT, header(integer(1),
                "Seconds to wait before the request would be allowed (the longest wait among the refusing "
                        + "limits). Unit: seconds, rounded up, at least 1."));
        Map<String, Header> headers = new LinkedHashMap<>();
        for (Map.Entry<String, String> header : RESPONSE_HEADERS.entrySet()) {
            headers.put(header.getKey(), OASFactory.createHeader().ref(HEADERS_REF + header.getValue()));
        }
        headers.put(RateLimitHeaders.RETRY_AFTER, OASFactory.createHeader().ref(HEADERS_REF + RETRY_AFTER_COMPONENT));
        components.addResponse(TOO_MANY_REQUESTS_RESPONSE, OASFactory.createAPIResponse()
                .description("Too Many Requests: a rate limit of this operation is exhausted for this client. "
                        + "Retry after the number of seconds in Retry-After; the body names the refusing limits.")
                .headers(headers)
                .content(OASFactory.createContent().addMediaType(RateLimitExceptionMapper.PROBLEM_JSON,
                        OASFactory.createMediaType().schema(OASFactory.createSchema().ref(SCHEMAS_REF + PROBLEM_SCHEMA)))));
    }

    private static Schema problemSchema() {
        Schema schema = SchemaTypes.typed(OASFactory.createSchema(), SchemaType.OBJECT)
                .description("RFC 9457 problem details of a request refused by a rate limit.");
        schema.addProperty("type", string().format("uri")
                .description("The problem type: " + RateLimitExceptionMapper.PROBLEM_TYPE + "."));
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
