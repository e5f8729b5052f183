package dev.ratelimit.openapi.internal.document;

import static dev.ratelimit.openapi.internal.document.RateLimitComponents.HEADERS_REF;
import static dev.ratelimit.openapi.internal.document.RateLimitComponents.RESPONSES_REF;
import static dev.ratelimit.openapi.internal.document.RateLimitComponents.TOO_MANY_REQUESTS_DESCRIPTION;
import static dev.ratelimit.openapi.internal.document.RateLimitComponents.TOO_MANY_REQUESTS_RESPONSE;
import static dev.ratelimit.openapi.internal.document.RateLimitComponents.tooManyRequests;

import dev.ratelimit.core.headers.RateLimitHeaders;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.models.Components;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;
import org.eclipse.microprofile.openapi.models.responses.APIResponses;

/**
 * What the document says about a limited operation: the limits in force with their effective values
 * (configuration applied), the plans that change them, algorithm, cost and mode, in its description
 * ({@link LimitDescription}) and in {@value #EXTENSION} ({@link LimitExtension}); and, when one of them can refuse a
 * request (not all in shadow mode), a {@code 429} response with the problem body and every rate-limit header, and the
 * {@code RateLimit-*} headers on its other responses. The shared parts are components ({@link RateLimitComponents}),
 * referenced from each operation. Running it twice on one document changes nothing the second time.
 */
public final class LimitDocumentation {

    /** The operation extension listing the limits in force. */
    public static final String EXTENSION = "x-ratelimit";

    static final String TOO_MANY_REQUESTS = "429";
    /**
     * Marks the 429 this class writes for an operation whose limits count other things than each client's requests
     * (only failures; per address, per key, for all clients): it says which, so it is the operation's own.
     */
    static final String OWN_TOO_MANY_REQUESTS = "x-ratelimit-too-many-requests";

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
        operation.addExtension(EXTENSION, LimitExtension.items(limits));
        String own = again ? LimitDescription.withoutOurText(operation.getDescription()) : operation.getDescription();
        String text = LimitDescription.describe(limits, refuses);
        operation.setDescription(own == null || own.isBlank() ? text : own.strip() + "\n\n" + text);
        if (!refuses) {
            return;
        }
        RateLimitComponents.addTo(document);
        APIResponses responses = operation.getResponses();
        if (responses == null) {
            responses = OASFactory.createAPIResponses();
            operation.setResponses(responses);
        }
        APIResponse tooMany = responses.getAPIResponse(TOO_MANY_REQUESTS);
        if (tooMany == null || isOurs(tooMany)) {
            String counting = LimitDescription.counting(limits);
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
            for (Map.Entry<String, String> header : RateLimitComponents.RESPONSE_HEADERS.entrySet()) {
                addHeader(response, header.getKey(), header.getValue());
            }
            if (TOO_MANY_REQUESTS.equals(code)) {
                addHeader(response, RateLimitHeaders.RETRY_AFTER, RateLimitComponents.RETRY_AFTER_COMPONENT);
            }
        }
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
}
