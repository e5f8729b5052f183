package dev.ratelimit.core.headers;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.engine.RequestLedger;
import java.util.List;

/**
 * The rate-limit header names and their formats (SPEC 4, SPEC 15), in one place. Values are RFC 8941/9651
 * structured fields: integers, and lists of strings with integer parameters. Names are validated to
 * {@code [A-Za-z0-9._-]} at deployment, so they are valid sf-strings as they are.
 */
public final class RateLimitHeaders {

    public static final String LIMIT = "RateLimit-Limit";
    public static final String REMAINING = "RateLimit-Remaining";
    public static final String RESET = "RateLimit-Reset";
    public static final String POLICY = "RateLimit-Policy";
    public static final String RATELIMIT = "RateLimit";
    public static final String RETRY_AFTER = "Retry-After";

    /** Every header of an answer the limiter reached, Retry-After (429 only) last. */
    public static final List<String> ALL = List.of(LIMIT, REMAINING, RESET, POLICY, RATELIMIT, RETRY_AFTER);

    private static final String[] SMALL = new String[1025];

    static {
        for (int i = 0; i < SMALL.length; i++) {
            SMALL[i] = Integer.toString(i);
        }
    }

    /** Receives one header. */
    @FunctionalInterface
    public interface Sink {
        void header(String name, String value);
    }

    private RateLimitHeaders() {
    }

    /**
     * Writes the headers of what the ledger decided: for an allowed request the last limit in order
     * ({@code RateLimit-Limit}, {@code -Remaining}, {@code -Reset}) and every limit ({@code RateLimit-Policy},
     * {@code RateLimit}); for a refused one the refusing limit with the longest wait, listed last, with
     * {@code Retry-After}. Limits in shadow mode write nothing.
     *
     * @return false, with nothing written, when the ledger decided nothing reportable
     */
    public static boolean write(RequestLedger ledger, Sink sink) {
        Outcome headline = ledger.headline();
        if (headline == null) {
            return false;
        }
        RateLimitDecision refusal = ledger.refusal();
        List<Outcome> reported = ledger.reported();
        sink.header(LIMIT, number(headline.policy().permitLimit()));
        if (refusal == null) {
            sink.header(REMAINING, number(headline.remaining()));
            sink.header(RESET, number(headline.resetSeconds()));
        } else {
            String retryAfter = number(refusal.retryAfterSeconds());
            sink.header(REMAINING, SMALL[0]);
            sink.header(RESET, retryAfter);
            sink.header(RETRY_AFTER, retryAfter);
        }
        if (reported.size() == 1) {
            Outcome o = reported.get(0);
            sink.header(POLICY, policyItem(new StringBuilder(32), o).toString());
            sink.header(RATELIMIT, stateItem(new StringBuilder(32), o).toString());
            return true;
        }
        StringBuilder policy = new StringBuilder(32 * reported.size());
        StringBuilder state = new StringBuilder(32 * reported.size());
        for (Outcome o : reported) {
            if (policy.length() > 0) {
                policy.append(", ");
                state.append(", ");
            }
            policyItem(policy, o);
            stateItem(state, o);
        }
        sink.header(POLICY, policy.toString());
        sink.header(RATELIMIT, state.toString());
        return true;
    }

    /** {@code "burst";q=5;w=1}: one item of {@code RateLimit-Policy}. */
    private static StringBuilder policyItem(StringBuilder into, Outcome o) {
        return into.append('"').append(o.policy().name()).append("\";q=").append(o.policy().permitLimit())
                .append(";w=").append(o.policy().windowSeconds());
    }

    /** {@code "burst";r=4;t=1}: one item of {@code RateLimit}; a refusing limit has {@code r=0}. */
    private static StringBuilder stateItem(StringBuilder into, Outcome o) {
        return into.append('"').append(o.policy().name()).append("\";r=").append(o.allowed() ? o.remaining() : 0)
                .append(";t=").append(o.resetSeconds());
    }

    private static String number(long value) {
        return value >= 0 && value < SMALL.length ? SMALL[(int) value] : Long.toString(value);
    }
}
