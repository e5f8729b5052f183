package dev.ratelimit.tck.support;

import org.greenbytes.http.sfv.IntegerItem;
import org.greenbytes.http.sfv.Item;
import org.greenbytes.http.sfv.ListElement;
import org.greenbytes.http.sfv.OuterList;
import org.greenbytes.http.sfv.ParseException;
import org.greenbytes.http.sfv.Parser;
import org.greenbytes.http.sfv.StringItem;

import java.net.http.HttpHeaders;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The rate-limit fields of one response, parsed as RFC 8941 structured fields (docs/responses.md, "Headers").
 * Parsing checks the syntax and every rule that holds for any response, so each request of the suite is checked:
 * a field that is not a valid structured field, of the shape the headers' rules prescribe, fails the test that
 * received it.
 */
public final class RateLimitHeaders {

    public static final String LIMIT = "RateLimit-Limit";
    public static final String REMAINING = "RateLimit-Remaining";
    public static final String RESET = "RateLimit-Reset";
    public static final String POLICY = "RateLimit-Policy";
    public static final String RATE_LIMIT = "RateLimit";
    public static final String RETRY_AFTER = "Retry-After";
    /** Where the suite runs with the example's {@code burst} limit on another algorithm (BoundaryAwareClientTest). */
    public static final String BURST_ALGORITHM_PROPERTY = "tck.burstAlgorithm";
    /** Present together on every response the limiter reached, or not at all. */
    public static final List<String> ALWAYS_TOGETHER = List.of(LIMIT, REMAINING, RESET, POLICY, RATE_LIMIT);

    final OptionalLong limit;
    final OptionalLong remaining;
    final OptionalLong reset;
    final OptionalLong retryAfter;
    final List<PolicyItem> policies;
    final List<LimitItem> items;

    private RateLimitHeaders(HttpHeaders headers) {
        limit = integer(headers, LIMIT);
        remaining = integer(headers, REMAINING);
        reset = integer(headers, RESET);
        retryAfter = integer(headers, RETRY_AFTER);
        policies = policies(headers);
        items = items(headers);
    }

    /** Parses and validates; an {@link AssertionError} says which rule the response breaks. */
    static RateLimitHeaders of(int status, HttpHeaders headers) {
        RateLimitHeaders parsed = new RateLimitHeaders(headers);
        parsed.check(status, headers);
        return parsed;
    }

    boolean present() {
        return limit.isPresent();
    }

    private void check(int status, HttpHeaders headers) {
        long count = ALWAYS_TOGETHER.stream().filter(name -> headers.firstValue(name).isPresent()).count();
        require(count == 0 || count == ALWAYS_TOGETHER.size(),
                "either all or none of " + ALWAYS_TOGETHER + " must be sent");
        retryAfter.ifPresent(seconds -> require(status == 429, "Retry-After is sent only with 429, was sent with " + status));
        if (!present()) {
            return;
        }
        require(limit.getAsLong() >= 1, LIMIT + " must be >= 1");
        require(remaining.getAsLong() >= 0, REMAINING + " must be >= 0");
        require(reset.getAsLong() >= 1, RESET + " is rounded up and at least 1");
        require(!policies.isEmpty(), POLICY + " must list at least one limit");
        require(policies.size() == items.size(), POLICY + " and " + RATE_LIMIT + " must list the same limits");
        Set<String> names = new HashSet<>();
        for (int i = 0; i < policies.size(); i++) {
            PolicyItem policy = policies.get(i);
            LimitItem item = items.get(i);
            require(policy.name().equals(item.name()),
                    POLICY + " and " + RATE_LIMIT + " must list the same limits in the same order, item " + i
                            + " is " + policy.name() + " vs " + item.name());
            require(names.add(policy.name()), "limit " + policy.name() + " listed twice");
            require(policy.quota() >= 1 && policy.windowSeconds() >= 1, "q and w must be >= 1 in " + policy);
            require(item.remaining() >= 0 && item.remaining() <= policy.quota(), "r must be in [0, q] in " + item + " of " + policy);
            require(item.resetSeconds() >= 1 && item.resetSeconds() <= longestReset(policy),
                    "t must be in [1, " + longestReset(policy) + "] (rounded up, at least 1) in " + item + " of " + policy);
        }
        PolicyItem last = policies.get(policies.size() - 1);
        LimitItem lastItem = items.get(items.size() - 1);
        require(limit.getAsLong() == last.quota(), LIMIT + " must be q of the last limit listed (" + last + ")");
        require(remaining.getAsLong() == lastItem.remaining(), REMAINING + " must be r of the last limit listed (" + lastItem + ")");
        // A 429's RateLimit-Reset is its Retry-After (below), and the refusing limit's t keeps its own meaning (by
        // algorithm: until its oldest permit returns, or its bucket is full), which may differ: a token bucket refills
        // before it is full; a count that reserved permits ahead for waiting calls has its oldest permit back before
        // the next turn to spare.
        require(status == 429 || reset.getAsLong() == lastItem.resetSeconds(),
                RESET + " must be t of the last limit listed (" + lastItem + ")");
        if (status == 429) {
            require(retryAfter.isPresent(), "a 429 carries Retry-After");
            require(retryAfter.getAsLong() >= 1, RETRY_AFTER + " is rounded up and at least 1");
            require(remaining.getAsLong() == 0, REMAINING + " of a 429 is 0");
            require(reset.getAsLong() == retryAfter.getAsLong(), RESET + " of a 429 is the same as " + RETRY_AFTER);
        }
    }

    private static void require(boolean rule, String message) {
        if (!rule) {
            throw new AssertionError(message);
        }
    }

    private static OptionalLong integer(HttpHeaders headers, String name) {
        List<String> values = headers.allValues(name);
        if (values.isEmpty()) {
            return OptionalLong.empty();
        }
        require(values.size() == 1, name + " must be sent once, was " + values);
        Item<?> item;
        try {
            item = Parser.parseItem(values.get(0));
        } catch (ParseException e) {
            throw new AssertionError(name + ": '" + values.get(0) + "' is not an RFC 8941 item: " + e.getMessage(), e);
        }
        require(item instanceof IntegerItem, name + ": '" + values.get(0) + "' is not an sf-integer");
        require(item.getParams().isEmpty(), name + ": '" + values.get(0) + "' must not carry parameters");
        return OptionalLong.of(((IntegerItem) item).getAsLong());
    }

    private static List<PolicyItem> policies(HttpHeaders headers) {
        List<PolicyItem> result = new ArrayList<>();
        for (Map.Entry<String, Map<String, Long>> member : members(headers, POLICY, "q", "w")) {
            result.add(new PolicyItem(member.getKey(), member.getValue().get("q"), member.getValue().get("w")));
        }
        return List.copyOf(result);
    }

    private static List<LimitItem> items(HttpHeaders headers) {
        List<LimitItem> result = new ArrayList<>();
        for (Map.Entry<String, Map<String, Long>> member : members(headers, RATE_LIMIT, "r", "t")) {
            result.add(new LimitItem(member.getKey(), member.getValue().get("r"), member.getValue().get("t")));
        }
        return List.copyOf(result);
    }

    /** The members of an sf-list of sf-strings, each with exactly the two integer parameters given, in that order. */
    private static List<Map.Entry<String, Map<String, Long>>> members(HttpHeaders headers, String name, String first, String second) {
        List<String> lines = headers.allValues(name);
        if (lines.isEmpty()) {
            return List.of();
        }
        OuterList list;
        try {
            list = new Parser(lines).parseList();
        } catch (ParseException e) {
            throw new AssertionError(name + ": " + lines + " is not an RFC 8941 list: " + e.getMessage(), e);
        }
        List<Map.Entry<String, Map<String, Long>>> members = new ArrayList<>();
        for (ListElement<?> element : list.get()) {
            require(element instanceof StringItem, name + ": member " + element.serialize() + " must be an sf-string");
            require(List.copyOf(element.getParams().keySet()).equals(List.of(first, second)),
                    name + ": member " + element.serialize() + " must have exactly the parameters " + first + " and " + second + ", in that order");
            Item<?> a = element.getParams().get(first);
            Item<?> b = element.getParams().get(second);
            require(a instanceof IntegerItem && b instanceof IntegerItem,
                    name + ": parameters of " + element.serialize() + " must be sf-integers");
            members.add(Map.entry(((StringItem) element).get(),
                    Map.of(first, ((IntegerItem) a).getAsLong(), second, ((IntegerItem) b).getAsLong())));
        }
        return members;
    }

    /** The canonical RFC 8941 serialization of a list field as received (whitespace differences removed). */
    static String canonical(HttpHeaders headers, String name) {
        return new Parser(headers.allValues(name)).parseList().serialize();
    }

    /**
     * The longest {@code t} a limit may announce (docs/algorithms.md, "Headers per algorithm"): w for a sliding window,
     * whose oldest permit returns one window after the start of its step; w plus one step (w/8) for a strict window,
     * whose permits return one window after the end of their step; for a token bucket, the time to refill all q
     * permits at one every w/q, rounded up to whole microseconds. The example's {@code partner} and
     * {@code login-address} limits are strict windows; {@code burst} runs on another algorithm than the default only
     * when {@value #BURST_ALGORITHM_PROPERTY} says so.
     */
    static long longestReset(PolicyItem policy) {
        String algorithm = switch (policy.name()) {
            case "burst" -> System.getProperty(BURST_ALGORITHM_PROPERTY, "SLIDING_WINDOW");
            case "partner", "login-address" -> "STRICT_WINDOW";
            default -> "SLIDING_WINDOW";
        };
        long w = policy.windowSeconds();
        return switch (algorithm) {
            case "STRICT_WINDOW" -> (9 * w + 7) / 8;
            case "TOKEN_BUCKET" -> {
                long intervalMicros = (w * 1_000_000 + policy.quota() - 1) / policy.quota();
                yield (intervalMicros * policy.quota() + 999_999) / 1_000_000;
            }
            default -> w;
        };
    }
}
