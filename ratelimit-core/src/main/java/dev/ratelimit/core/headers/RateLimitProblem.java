package dev.ratelimit.core.headers;

import java.util.List;

/**
 * The body of a refused request (docs/responses.md, "The 429 body"): an RFC 9457 {@code application/problem+json}
 * document of the problem type that the IETF rate-limit headers draft registers, with its {@code violated-policies}
 * member. Beside the headers, so that what a 429 carries is written, and documented in OpenAPI, from one place.
 */
public final class RateLimitProblem {

    /** The problem type of a refused request. */
    public static final String TYPE = "https://iana.org/assignments/http-problem-types#quota-exceeded";

    /** The media type of the body. */
    public static final String MEDIA_TYPE = "application/problem+json";

    /** The HTTP status of a refused request. */
    public static final int STATUS = 429;

    private RateLimitProblem() {
    }

    /**
     * The body naming the refusing limits. Limit names are validated to {@code [A-Za-z0-9._-]} when the limits
     * deploy, so they need no escaping; everything else is constant.
     */
    public static String body(List<String> violatedPolicies) {
        StringBuilder json = new StringBuilder(192)
                .append("{\"type\":\"").append(TYPE)
                .append("\",\"title\":\"Too Many Requests\",\"status\":").append(STATUS)
                .append(",\"detail\":\"Rate limit exceeded.\",\"violated-policies\":[");
        for (int i = 0; i < violatedPolicies.size(); i++) {
            if (i > 0) {
                json.append(',');
            }
            json.append('"').append(violatedPolicies.get(i)).append('"');
        }
        return json.append("]}").toString();
    }
}
