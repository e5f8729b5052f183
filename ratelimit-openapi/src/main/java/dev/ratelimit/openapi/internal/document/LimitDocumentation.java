package dev.ratelimit.openapi.internal.document;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitMode;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.config.RateLimitSettings.Effective;
import dev.ratelimit.core.headers.RateLimitHeaders;
import dev.ratelimit.core.headers.RateLimitProblem;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.models.Components;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.headers.Header;
import org.eclipse.microprofile.openapi.models.media.Schema.SchemaType;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;
import org.eclipse.microprofile.openapi.models.responses.APIResponses;

/**
 * What the document says about a limited operation: the limits in force with their effective values
 * (configuration applied), the plans that change them, algorithm, cost and mode, in its description and in
 * {@value #EXTENSION}; and, when one of them can refuse a request (not all in shadow mode), a {@code 429}
 * response with the problem body and every rate-limit header, and the {@code RateLimit-*} headers on its other
 * responses. The shared parts are components, referenced from each operation. Running it twice on one document
 * changes nothing the second time.
 *
 * <p>One job, over 400 lines: writing one operation's part of the document (the OpenAPI model is verbose).
 */
public final class LimitDocumentation {

    /** The operation extension listing the limits in force. */
    public static final String EXTENSION = "x-ratelimit";

    static final String TOO_MANY_REQUESTS = "429";
    static final String PROBLEM_SCHEMA = "RateLimitProblem";
    static final String TOO_MANY_REQUESTS_RESPONSE = "RateLimitTooManyRequests";
    /**
     * Marks the 429 this class writes for an operation whose limits count other things than each client's requests
     * (only failures; per address, per key, for all clients): it says which, so it is the operation's own.
     */
    static final String OWN_TOO_MANY_REQUESTS = "x-ratelimit-too-many-requests";
    private static final String TOO_MANY_REQUESTS_DESCRIPTION = "Too Many Requests: a rate limit of this operation is "
            + "exhausted for this client. Retry after the number of seconds in Retry-After; the body names the refusing "
            + "limits.";

    /** How the text this class appends to an operation's description begins (one limit, several). */
    private static final String HEADING_ONE = "Rate limit (counted per client):";
    private static final String HEADING_MANY = "Rate limits (counted per client):";

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

    /**
     * Documents one limited operation; adds the components on first use. Limits in shadow mode are
     * described, but bring no 429 and no header: they never refuse and write none.
     *
     * @param limits the operation's limits after configuration, none of them off for every caller
     */
    public void document(Operation operation, List<EffectiveLimit> limits) {
        if (limits.isEmpty()) {
            return;
        }
        boolean refuses = limits.stream().anyMatch(EffectiveLimit::canRefuse);
        boolean again = operation.getExtensions() != null && operation.getExtensions().containsKey(EXTENSION);
        operation.addExtension(EXTENSION, extension(limits));
        String own = again ? withoutOurText(operation.getDescription()) : operation.getDescription();
        String text = describe(limits, refuses);
        operation.setDescription(own == null || own.isBlank() ? text : own.strip() + "\n\n" + text);
        if (!refuses) {
            return;
        }
        addComponents();
        APIResponses responses = operation.getResponses();
        if (responses == null) {
            responses = OASFactory.createAPIResponses();
            operation.setResponses(responses);
        }
        APIResponse tooMany = responses.getAPIResponse(TOO_MANY_REQUESTS);
        if (tooMany == null || isOurs(tooMany)) {
            String counting = counting(limits);
            responses.addAPIResponse(TOO_MANY_REQUESTS, counting == null
                    ? OASFactory.createAPIResponse().ref(RESPONSES_REF + TOO_MANY_REQUESTS_RESPONSE)
                    : tooManyRequests(TOO_MANY_REQUESTS_DESCRIPTION + " " + counting)
                            .addExtension(OWN_TOO_MANY_REQUESTS, Boolean.TRUE));
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

    /**
     * The operation's description without the text an earlier run appended (always last): a document
     * filtered again, with the configuration of another stage (build, then start-up), says what this run
     * finds, once.
     */
    private static String withoutOurText(String description) {
        if (description == null) {
            return null;
        }
        int at = Math.max(description.lastIndexOf(HEADING_ONE), description.lastIndexOf(HEADING_MANY));
        if (at == 0) {
            return "";
        }
        return at > 0 && description.startsWith("\n\n", at - 2) ? description.substring(0, at - 2) : description;
    }

    /**
     * What a reader of the document sees: one line per limit (how many per how long, the plans that
     * change it, cost, scope, algorithm, shadow mode), then what a refusal looks like.
     */
    static String describe(List<EffectiveLimit> limits, boolean refuses) {
        StringBuilder text = new StringBuilder(limits.size() == 1 ? HEADING_ONE : HEADING_MANY);
        for (EffectiveLimit limit : limits) {
            text.append("\n- ").append(describe(limit));
        }
        if (refuses) {
            text.append("\n\nA request over a limit is answered 429 Too Many Requests with Retry-After; the ")
                    .append("RateLimit headers of every response tell what is left.");
        }
        return text.toString();
    }

    /**
     * What the 429 of an operation says of its limits that count other things than each client's requests: which
     * count only failures, and by what they count. Null when each counts every request of each client.
     */
    static String counting(List<EffectiveLimit> limits) {
        StringJoiner text = new StringJoiner("; ", "", ".");
        text.setEmptyValue("");
        for (EffectiveLimit limit : limits) {
            if (limit.countsOtherwise()) {
                text.add('"' + limit.none().policy().name() + "\" " + countingOf(limit));
            }
        }
        return text.length() == 0 ? null : "Counted: " + text;
    }

    /** {@code counts only failed requests (status 400-599), per client address}. */
    private static String countingOf(EffectiveLimit limit) {
        StringBuilder text = new StringBuilder(limit.counting().failuresOnly()
                ? "counts only failed requests (status " + limit.counting().statuses() + "; a request that succeeds "
                + "gives its permit back)" : "counts every request");
        return text.append(", ").append(per(limit.counting().per())).toString();
    }

    /** {@code per client address}: whose count a limit spends from, as the document says it. */
    private static String per(RateLimitPer per) {
        return switch (per) {
            case CALLER -> "per client";
            case APPLICATION -> "for all clients together";
            case ADDRESS -> "per client address";
            case ARGUMENT -> "per key the request names (an account, say; never shown in the headers of an answer "
                    + "that is not a 429)";
        };
    }

    /**
     * {@code "default" allows 3 requests per 60 seconds (plan "gold": 10 per 60 seconds). Sliding window:
     * a request counts for up to 60 seconds.}
     */
    static String describe(EffectiveLimit limit) {
        RateLimitPolicy p = limit.none().policy();
        int cost = limit.declared().cost();
        String unit = (limit.counting().failuresOnly() ? "failed " : "") + (cost == 1 ? "request" : "permit");
        StringBuilder text = new StringBuilder().append('"').append(p.name()).append('"');
        if (limit.none().mode() == RateLimitMode.OFF) {
            text.append(" does not limit callers in no plan");
        } else {
            text.append(" allows ").append(count(p.permitLimit(), unit)).append(" per ").append(seconds(p.windowSeconds()));
        }
        if (!limit.plans().isEmpty()) {
            StringJoiner plans = new StringJoiner("; ", " (", ")");
            limit.plans().forEach((plan, e) -> plans.add(describePlan(plan, e, limit.none())));
            text.append(plans);
        }
        if (limit.counting().per() != RateLimitPer.CALLER) {
            text.append(", ").append(per(limit.counting().per()));
        }
        text.append('.');
        if (cost != 1) {
            text.append(" Each call costs ").append(cost).append(" permits.");
        }
        if (limit.declared().scope() == RateLimitScope.PRINCIPAL) {
            text.append(" Only requests that pass authorization count.");
        }
        if (limit.none().mode() != RateLimitMode.OFF) {
            text.append(' ').append(algorithm(p, unit));
        }
        if (limit.none().mode() == RateLimitMode.SHADOW) {
            text.append(" Shadow mode: it is counted, but never refuses a request and sends no header.");
        }
        return text.toString();
    }

    /** {@code plan "gold": 10 per 60 seconds}, {@code not limited for plan "gold"}. */
    private static String describePlan(String plan, Effective e, Effective none) {
        if (e.mode() == RateLimitMode.OFF) {
            return "not limited for plan \"" + plan + '"';
        }
        StringBuilder text = new StringBuilder("plan \"").append(plan).append("\": ").append(e.policy().permitLimit())
                .append(" per ").append(seconds(e.policy().windowSeconds()));
        if (e.policy().algorithm() != none.policy().algorithm()) {
            text.append(", ").append(algorithmName(e.policy().algorithm()));
        }
        if (e.mode() != none.mode()) {
            text.append(e.mode() == RateLimitMode.SHADOW ? ", shadow mode (never refused)" : ", enforced");
        }
        return text.toString();
    }

    /** One sentence per algorithm, in the limit's own numbers. */
    static String algorithm(RateLimitPolicy p, String unit) {
        int n = p.permitLimit();
        int w = p.windowSeconds();
        return switch (p.algorithm()) {
            case SLIDING_WINDOW -> "Sliding window: a " + unit + " counts for up to " + seconds(w) + ".";
            case STRICT_WINDOW -> "Strict window: never more than " + count(n, unit) + " in any span of " + seconds(w)
                    + ", at a sustained rate of 8/9 of that (" + decimal(BigDecimal.valueOf(8L * n), 9) + " per "
                    + seconds(w) + ") for a client that keeps retrying.";
            case TOKEN_BUCKET -> "Token bucket: a burst of " + count(n, unit) + ", then one every "
                    + decimal(BigDecimal.valueOf(w), n) + (n == w ? " second." : " seconds.");
        };
    }

    private static String algorithmName(RateLimitAlgorithm algorithm) {
        return switch (algorithm) {
            case SLIDING_WINDOW -> "sliding window";
            case STRICT_WINDOW -> "strict window";
            case TOKEN_BUCKET -> "token bucket";
        };
    }

    private static String count(int n, String unit) {
        return n + " " + unit + (n == 1 ? "" : "s");
    }

    private static String seconds(int seconds) {
        return seconds + (seconds == 1 ? " second" : " seconds");
    }

    /** {@code dividend / divisor} to 3 significant digits, without trailing zeros: 20, 8.57, 0.00167. */
    private static String decimal(BigDecimal dividend, int divisor) {
        BigDecimal q = dividend.divide(BigDecimal.valueOf(divisor), new MathContext(3));
        q = q.stripTrailingZeros();
        return q.scale() < 0 ? q.setScale(0).toPlainString() : q.toPlainString();
    }

    /**
     * The {@value #EXTENSION} items, one per limit: its effective values for callers in no plan, what
     * the code declares beyond them, its mode, and the plans that change it.
     */
    private static List<Map<String, Object>> extension(List<EffectiveLimit> limits) {
        List<Map<String, Object>> items = new ArrayList<>();
        for (EffectiveLimit limit : limits) {
            RateLimitPolicy p = limit.none().policy();
            Map<String, Object> item = new LinkedHashMap<>();
            item.put("name", p.name());
            item.put("permitLimit", p.permitLimit());
            item.put("windowSeconds", p.windowSeconds());
            item.put("algorithm", p.algorithm().name());
            item.put("cost", limit.declared().cost());
            item.put("scope", limit.declared().scope().name());
            item.put("declaredOn", limit.declared().declaredOn().name().toLowerCase(Locale.ROOT));
            item.put("mode", mode(limit.none().mode()));
            item.put("per", limit.counting().per().name());
            if (limit.counting().failuresOnly()) {
                item.put("failuresOnly", Boolean.TRUE);
                item.put("failureStatuses", limit.counting().statuses().toString());
            }
            if (!limit.plans().isEmpty()) {
                Map<String, Object> plans = new LinkedHashMap<>();
                limit.plans().forEach((plan, e) -> plans.put(plan, planItem(e, limit.none())));
                item.put("plans", plans);
            }
            items.add(item);
        }
        return items;
    }

    /** {@code {"permitLimit": 10, "windowSeconds": 60}}, the algorithm and mode where they differ; {@code {"mode": "off"}}. */
    private static Map<String, Object> planItem(Effective e, Effective none) {
        Map<String, Object> item = new LinkedHashMap<>();
        if (e.mode() != RateLimitMode.OFF) {
            item.put("permitLimit", e.policy().permitLimit());
            item.put("windowSeconds", e.policy().windowSeconds());
            if (e.policy().algorithm() != none.policy().algorithm()) {
                item.put("algorithm", e.policy().algorithm().name());
            }
        }
        if (e.mode() == RateLimitMode.OFF || e.mode() != none.mode()) {
            item.put("mode", mode(e.mode()));
        }
        return item;
    }

    private static String mode(RateLimitMode mode) {
        return mode.name().toLowerCase(Locale.ROOT);
    }

    private static boolean isOurs(APIResponse response) {
        return (RESPONSES_REF + TOO_MANY_REQUESTS_RESPONSE).equals(response.getRef())
                || (response.getExtensions() != null && response.getExtensions().containsKey(OWN_TOO_MANY_REQUESTS));
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
    private static APIResponse tooManyRequests(String description) {
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
