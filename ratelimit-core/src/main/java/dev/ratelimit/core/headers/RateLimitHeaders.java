package dev.ratelimit.core.headers;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.engine.RequestLedger;
import java.util.List;

/**
 * The rate-limit header names and their formats (docs/responses.md, "Headers"; docs/algorithms.md), in one place.
 * Values are RFC 8941/9651 structured fields: integers, and lists of strings with integer parameters. Names are
 * validated to {@code [A-Za-z0-9._-]} at deployment, so they are valid sf-strings as they are.
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

    private static final String[] NAMES = ALL.toArray(new String[0]);

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
     * The position in {@link #ALL} of the header {@code name}, matched without regard to case (HTTP header names are
     * case-insensitive); -1 for a header that is not one of them. For a sink that keeps something per header (an
     * encoded name, say) in an array in the order of {@link #ALL}.
     */
    public static int indexOf(String name) {
        for (int i = 0; i < NAMES.length; i++) {
            if (NAMES[i].equalsIgnoreCase(name)) {
                return i;
            }
        }
        return -1;
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
        return write(ledger, null, sink);
    }

    /**
     * {@link #write(RequestLedger, Sink)}, with what depends only on the limits' values ({@code RateLimit-Policy},
     * {@code RateLimit-Limit}, the start of each {@code RateLimit} item) taken from {@code formats}, the call
     * site's, formatted there once per list of limits.
     *
     * @param formats the call site's formats, or null to format everything now
     */
    public static boolean write(RequestLedger ledger, Formats formats, Sink sink) {
        Outcome headline = ledger.headline();
        if (headline == null) {
            return false;
        }
        RateLimitDecision refusal = ledger.refusal();
        List<Outcome> reported = ledger.reported();
        Formatted formatted = formats == null ? null : formats.of(reported);
        sink.header(LIMIT, formatted != null && formatted.headlineLimit == headline.policy().permitLimit() ? formatted.limit
                : number(headline.policy().permitLimit()));
        if (refusal == null) {
            sink.header(REMAINING, number(headline.remaining()));
            sink.header(RESET, number(headline.resetSeconds()));
        } else {
            String retryAfter = number(refusal.retryAfterSeconds());
            sink.header(REMAINING, SMALL[0]);
            sink.header(RESET, retryAfter);
            sink.header(RETRY_AFTER, retryAfter);
        }
        if (formatted != null) {
            sink.header(POLICY, formatted.policy);
            StringBuilder state = new StringBuilder(formatted.stateLength);
            for (int i = 0; i < reported.size(); i++) {
                Outcome o = reported.get(i);
                if (i > 0) {
                    state.append(", ");
                }
                state.append(formatted.statePrefixes[i]);
                stateValues(state, o);
            }
            sink.header(RATELIMIT, state.toString());
            return true;
        }
        if (reported.size() == 1) {
            Outcome o = reported.get(0);
            sink.header(POLICY, policyItem(new StringBuilder(32), o.policy()).toString());
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
            policyItem(policy, o.policy());
            stateItem(state, o);
        }
        sink.header(POLICY, policy.toString());
        sink.header(RATELIMIT, state.toString());
        return true;
    }

    /** {@code "burst";q=5;w=1}: one item of {@code RateLimit-Policy}. */
    private static StringBuilder policyItem(StringBuilder into, RateLimitPolicy policy) {
        return into.append('"').append(policy.name()).append("\";q=").append(policy.permitLimit())
                .append(";w=").append(policy.windowSeconds());
    }

    /** {@code "burst";r=4;t=1}: one item of {@code RateLimit}; a refusing limit has {@code r=0}. */
    private static StringBuilder stateItem(StringBuilder into, Outcome o) {
        return stateValues(statePrefix(into, o.policy()), o);
    }

    /** {@code "burst";r=}: the start of an item of {@code RateLimit}, which depends on the limit alone. */
    private static StringBuilder statePrefix(StringBuilder into, RateLimitPolicy policy) {
        return into.append('"').append(policy.name()).append("\";r=");
    }

    private static StringBuilder stateValues(StringBuilder into, Outcome o) {
        return into.append(o.allowed() ? o.remaining() : 0).append(";t=").append(o.resetSeconds());
    }

    private static String number(long value) {
        return value >= 0 && value < SMALL.length ? SMALL[(int) value] : Long.toString(value);
    }

    /**
     * What the headers of one call site (a resource method) repeat on every request, formatted once per list of
     * reported limits and kept: {@code RateLimit-Policy}, {@code RateLimit-Limit} and the start of each
     * {@code RateLimit} item. A call site reports few lists: one per plan of callers, another when a bean limit or
     * the programmatic API joined the request, or for a refusal (refusing limits last); a list whose values
     * changed is another list. The last {@value #SIZE} lists are kept.
     *
     * <p>Thread-safe without locks: {@link #kept} is replaced, never changed; a list formatted by two requests at
     * once is kept once or twice, and either copy is right.
     */
    public static final class Formats {

        private static final int SIZE = 4;
        private static final Formatted[] NONE = new Formatted[0];

        /** The lists formatted so far, newest first, at most {@link #SIZE}. */
        private volatile Formatted[] kept = NONE;

        Formatted of(List<Outcome> reported) {
            Formatted[] all = kept;
            for (Formatted f : all) {
                if (f.matches(reported)) {
                    return f;
                }
            }
            Formatted made = new Formatted(reported);
            Formatted[] more = new Formatted[Math.min(all.length + 1, SIZE)];
            more[0] = made;
            System.arraycopy(all, 0, more, 1, more.length - 1);
            kept = more;
            return made;
        }
    }

    /** The parts of the headers that depend on a list of limits alone. Immutable. */
    private static final class Formatted {
        private final RateLimitPolicy[] policies;
        private final int headlineLimit;
        private final String limit;
        private final String policy;
        private final String[] statePrefixes;
        private final int stateLength;

        Formatted(List<Outcome> reported) {
            int n = reported.size();
            policies = new RateLimitPolicy[n];
            statePrefixes = new String[n];
            StringBuilder policyText = new StringBuilder(32 * n);
            int length = 0;
            for (int i = 0; i < n; i++) {
                RateLimitPolicy p = reported.get(i).policy();
                policies[i] = p;
                if (i > 0) {
                    policyText.append(", ");
                }
                policyItem(policyText, p);
                statePrefixes[i] = statePrefix(new StringBuilder(16), p).toString();
                length += statePrefixes[i].length() + 16;
            }
            headlineLimit = policies[n - 1].permitLimit();
            limit = number(headlineLimit);
            policy = policyText.toString();
            stateLength = length;
        }

        /** True when {@code reported} lists the limits of this list, in its order, with the same values. */
        boolean matches(List<Outcome> reported) {
            if (reported.size() != policies.length) {
                return false;
            }
            for (int i = 0; i < policies.length; i++) {
                RateLimitPolicy p = reported.get(i).policy();
                if (p != policies[i] && !p.equals(policies[i])) {
                    return false;
                }
            }
            return true;
        }
    }
}
