package dev.ratelimit.jaxrs.internal.headers;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitDecision.Outcome;
import dev.ratelimit.internal.engine.RequestLedger;
import jakarta.ws.rs.core.MultivaluedMap;
import java.util.List;

/**
 * The header names and their formats (SPEC 4), in one place. Values are RFC 8941 structured fields:
 * integers, and lists of strings with integer parameters. Names are validated to
 * {@code [A-Za-z0-9._-]} at deployment, so they are valid sf-strings as they are.
 */
public final class RateLimitHeaders {

    public static final String LIMIT = "RateLimit-Limit";
    public static final String REMAINING = "RateLimit-Remaining";
    public static final String RESET = "RateLimit-Reset";
    public static final String POLICY = "RateLimit-Policy";
    public static final String RATELIMIT = "RateLimit";
    public static final String RETRY_AFTER = "Retry-After";

    private RateLimitHeaders() {
    }

    /** Writes the headers of what the ledger decided; nothing when it decided nothing. */
    public static void write(RequestLedger ledger, MultivaluedMap<String, Object> headers) {
        Outcome headline = ledger.headline();
        if (headline == null) {
            return;
        }
        RateLimitDecision refusal = ledger.refusal();
        List<Outcome> reported = ledger.reported();
        StringBuilder policy = new StringBuilder(32 * reported.size());
        StringBuilder state = new StringBuilder(32 * reported.size());
        for (Outcome o : reported) {
            if (policy.length() > 0) {
                policy.append(", ");
                state.append(", ");
            }
            policy.append('"').append(o.policy().name()).append("\";q=").append(o.policy().permitLimit())
                    .append(";w=").append(o.policy().windowSeconds());
            state.append('"').append(o.policy().name()).append("\";r=").append(o.allowed() ? o.remaining() : 0)
                    .append(";t=").append(o.resetSeconds());
        }
        headers.putSingle(LIMIT, headline.policy().permitLimit());
        if (refusal == null) {
            headers.putSingle(REMAINING, headline.remaining());
            headers.putSingle(RESET, headline.resetSeconds());
        } else {
            long retryAfter = refusal.retryAfterSeconds();
            headers.putSingle(REMAINING, 0);
            headers.putSingle(RESET, retryAfter);
            headers.putSingle(RETRY_AFTER, retryAfter);
        }
        headers.putSingle(POLICY, policy.toString());
        headers.putSingle(RATELIMIT, state.toString());
    }
}
