package dev.ratelimit.tck.support;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.net.http.HttpHeaders;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A response, with its rate-limit fields parsed and validated on arrival (see {@link RateLimitHeaders}).
 * Accessors that expect a field fail with the whole response in the message when it is missing.
 */
public final class Reply {

    public static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String request;
    private final int status;
    private final HttpHeaders headers;
    private final String body;
    private final long sentNanos;
    private final long receivedNanos;
    private final RateLimitHeaders rateLimit;

    Reply(String request, int status, HttpHeaders headers, String body, long sentNanos, long receivedNanos) {
        this.request = request;
        this.status = status;
        this.headers = headers;
        this.body = body;
        this.sentNanos = sentNanos;
        this.receivedNanos = receivedNanos;
        try {
            this.rateLimit = RateLimitHeaders.of(status, headers);
        } catch (AssertionError e) {
            throw new AssertionError("invalid rate-limit fields: " + e.getMessage() + "\n" + this, e);
        }
    }

    public int status() {
        return status;
    }

    /** Fails unless the status is the one expected. */
    public Reply assertStatus(int expected) {
        assertThat(status).as("status of %s", this).isEqualTo(expected);
        return this;
    }

    public String body() {
        return body;
    }

    public Optional<String> header(String name) {
        return headers.firstValue(name);
    }

    public JsonNode json() {
        try {
            return JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw new AssertionError("body is not JSON: " + e.getOriginalMessage() + "\n" + this, e);
        }
    }

    /** {@code System.nanoTime()} just before the request was sent. */
    public long sentNanos() {
        return sentNanos;
    }

    /** {@code System.nanoTime()} just after the response was read. */
    public long receivedNanos() {
        return receivedNanos;
    }

    /** Whether the limiter reached this request ({@code RateLimit-*} fields present). */
    public boolean hasRateLimitHeaders() {
        return rateLimit.present();
    }

    /** Fails if any rate-limit field ({@code RateLimit-*}, {@code RateLimit}, {@code Retry-After}) was sent. */
    public Reply assertNoRateLimitHeaders() {
        List<String> sent = new ArrayList<>();
        for (String name : RateLimitHeaders.ALWAYS_TOGETHER) {
            header(name).ifPresent(value -> sent.add(name));
        }
        header(RateLimitHeaders.RETRY_AFTER).ifPresent(value -> sent.add(RateLimitHeaders.RETRY_AFTER));
        assertThat(sent).as("rate-limit fields of %s", this).isEmpty();
        return this;
    }

    public long limit() {
        return required(rateLimit.limit, RateLimitHeaders.LIMIT);
    }

    public long remaining() {
        return required(rateLimit.remaining, RateLimitHeaders.REMAINING);
    }

    public long reset() {
        return required(rateLimit.reset, RateLimitHeaders.RESET);
    }

    public long retryAfter() {
        return required(rateLimit.retryAfter, RateLimitHeaders.RETRY_AFTER);
    }

    public OptionalLong retryAfterIfSent() {
        return rateLimit.retryAfter;
    }

    /** {@code RateLimit-Policy} in the order sent. */
    public List<PolicyItem> policies() {
        return rateLimit.policies;
    }

    /** {@code RateLimit} in the order sent. */
    public List<LimitItem> items() {
        return rateLimit.items;
    }

    public List<String> limitNames() {
        return rateLimit.policies.stream().map(PolicyItem::name).toList();
    }

    public Optional<PolicyItem> findPolicy(String name) {
        return rateLimit.policies.stream().filter(p -> p.name().equals(name)).findFirst();
    }

    public Optional<LimitItem> findItem(String name) {
        return rateLimit.items.stream().filter(i -> i.name().equals(name)).findFirst();
    }

    public PolicyItem policy(String name) {
        return findPolicy(name).orElseThrow(() -> new AssertionError("no " + RateLimitHeaders.POLICY + " item \"" + name + "\"\n" + this));
    }

    public LimitItem item(String name) {
        return findItem(name).orElseThrow(() -> new AssertionError("no " + RateLimitHeaders.RATE_LIMIT + " item \"" + name + "\"\n" + this));
    }

    /** {@code r} of the named limit's {@code RateLimit} item. */
    public long remaining(String name) {
        return item(name).remaining();
    }

    /** The canonical RFC 8941 serialization of a list field, for comparing a whole field with documented text. */
    public String canonical(String listField) {
        return RateLimitHeaders.canonical(headers, listField);
    }

    /**
     * Fails unless this is the rate-limit 429 (docs/responses.md, "The 429 body") refused by exactly the limits named:
     * problem+json body of the quota-exceeded type, {@code violated-policies} naming them, {@code Retry-After}, and the
     * refusing limit listed last with {@code r=0}.
     */
    public Reply assertRefusedBy(String... violated) {
        assertStatus(429);
        assertThat(header("Content-Type")).as("Content-Type of %s", this)
                .hasValueSatisfying(type -> assertThat(type.split(";")[0].trim().toLowerCase(Locale.ROOT))
                        .isEqualTo("application/problem+json"));
        JsonNode problem = json();
        assertThat(problem.path("type").asText()).as("type of %s", this).isEqualTo(QUOTA_EXCEEDED);
        assertThat(problem.path("title").asText()).as("title of %s", this).isEqualTo("Too Many Requests");
        assertThat(problem.path("status").isInt() ? problem.path("status").asInt() : -1).as("status member of %s", this).isEqualTo(429);
        assertThat(problem.path("detail").isTextual() && !problem.path("detail").asText().isBlank())
                .as("non-blank detail in %s", this).isTrue();
        JsonNode policies = problem.path("violated-policies");
        assertThat(policies.isArray()).as("violated-policies is an array in %s", this).isTrue();
        List<String> names = new ArrayList<>();
        policies.forEach(node -> {
            assertThat(node.isTextual()).as("violated-policies holds strings in %s", this).isTrue();
            names.add(node.asText());
        });
        assertThat(names).as("violated-policies of %s", this).containsExactlyInAnyOrder(violated);
        assertThat(hasRateLimitHeaders()).as("a 429 carries the rate-limit fields: %s", this).isTrue();
        assertThat(retryAfter()).as("Retry-After of %s", this).isPositive();
        LimitItem last = items().get(items().size() - 1);
        assertThat(last.name()).as("the refusing limit is listed last in %s", this).isIn((Object[]) violated);
        assertThat(last.remaining()).as("the refusing limit shows r=0 in %s", this).isZero();
        for (String name : violated) {
            assertThat(remaining(name)).as("r of refusing limit %s in %s", name, this).isZero();
        }
        return this;
    }

    private long required(OptionalLong field, String name) {
        return field.orElseThrow(() -> new AssertionError("no " + name + " field\n" + this));
    }

    /** The {@code violated-policies} member of a problem+json body (empty if absent). */
    public List<String> problemViolatedPolicies() {
        List<String> names = new ArrayList<>();
        json().path("violated-policies").forEach(node -> names.add(node.asText()));
        return names;
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder(request).append(" -> ").append(status);
        for (String name : List.of(RateLimitHeaders.POLICY, RateLimitHeaders.RATE_LIMIT, RateLimitHeaders.LIMIT,
                RateLimitHeaders.REMAINING, RateLimitHeaders.RESET, RateLimitHeaders.RETRY_AFTER, "Content-Type", "Location")) {
            List<String> values = headers.allValues(name);
            if (!values.isEmpty()) {
                text.append("\n  ").append(name).append(": ").append(String.join(", ", values));
            }
        }
        if (body != null && !body.isEmpty()) {
            text.append("\n  body: ").append(body.length() > 500 ? body.substring(0, 500) + "..." : body);
        }
        return text.toString();
    }
}
