package dev.ratelimit.openapi.internal.document;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitMode;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.config.RateLimitSettings.Effective;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.List;
import java.util.StringJoiner;

/**
 * The words the document says about a limited operation's limits, in the limits' effective numbers: the text appended
 * to the operation's description (one line per limit, then what a refusal looks like), and what the operation's own
 * 429 says of limits that count other things than each client's requests.
 *
 * <p>Not API.
 */
final class LimitDescription {

    /** How the text appended to an operation's description begins (one limit, several). */
    private static final String HEADING_ONE = "Rate limit (counted per client):";
    private static final String HEADING_MANY = "Rate limits (counted per client):";

    private LimitDescription() {
    }

    /**
     * The operation's description without the text an earlier run appended (always last): a document
     * filtered again, with the configuration of another stage (build, then start-up), says what this run
     * finds, once.
     */
    static String withoutOurText(String description) {
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
}
