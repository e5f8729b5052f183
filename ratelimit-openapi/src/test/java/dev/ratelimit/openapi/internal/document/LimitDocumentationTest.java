package dev.ratelimit.openapi.internal.document;

import static dev.ratelimit.openapi.Limits.declared;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.config.RateLimitSettings;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;
import org.junit.jupiter.api.Test;

/**
 * Cases a generator rarely writes, on a model built with the runtime's own model classes (SmallRye here),
 * and the sentences of the description, limit by limit.
 */
class LimitDocumentationTest {

    private static final List<EffectiveLimit> LIMITS = effective(Map.of(), limit("default", 1, 1));

    private static LimitDeclaration limit(String name, int permitLimit, int windowSeconds) {
        return declared(DeclaredOn.METHOD, "R.m()", name, permitLimit, windowSeconds);
    }

    private static List<EffectiveLimit> effective(Map<String, String> config, LimitDeclaration... limits) {
        return EffectiveLimit.of(List.of(limits), RateLimitSettings.of(config));
    }

    private static String line(Map<String, String> config, LimitDeclaration limit) {
        List<EffectiveLimit> limits = effective(config, limit);
        assertThat(limits).hasSize(1);
        return LimitDescription.describe(limits.get(0));
    }

    @Test
    void aResponseThatReferencesAComponentGetsACopyWithTheHeadersAndTheComponentStaysAsItWas() {
        OpenAPI document = OASFactory.createOpenAPI().components(OASFactory.createComponents()
                .addResponse("NotFound", OASFactory.createAPIResponse().description("Not found")
                        .content(OASFactory.createContent().addMediaType("text/plain", OASFactory.createMediaType()))));
        Operation operation = OASFactory.createOperation().responses(OASFactory.createAPIResponses()
                .addAPIResponse("404", OASFactory.createAPIResponse().ref("#/components/responses/NotFound")));

        new LimitDocumentation(document).document(operation, LIMITS);

        APIResponse notFound = operation.getResponses().getAPIResponse("404");
        assertThat(notFound.getRef()).isNull();
        assertThat(notFound.getDescription()).isEqualTo("Not found");
        assertThat(notFound.getContent().getMediaTypes()).containsOnlyKeys("text/plain");
        assertThat(notFound.getHeaders()).containsOnlyKeys("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset",
                "RateLimit-Policy", "RateLimit");
        assertThat(document.getComponents().getResponses().get("NotFound").getHeaders()).isNullOrEmpty();
    }

    @Test
    void aHeaderTheOperationDocumentsItselfIsKept() {
        OpenAPI document = OASFactory.createOpenAPI();
        APIResponse own429 = OASFactory.createAPIResponse().description("Slow down")
                .addHeader("retry-after", OASFactory.createHeader().description("ours"));
        Operation operation = OASFactory.createOperation().description("Lists things.")
                .responses(OASFactory.createAPIResponses().addAPIResponse("429", own429));

        new LimitDocumentation(document).document(operation, LIMITS);

        assertThat(own429.getHeaders().get("retry-after").getDescription()).isEqualTo("ours");
        assertThat(own429.getHeaders()).doesNotContainKey("Retry-After").containsKey("RateLimit-Policy");
        assertThat(operation.getDescription()).startsWith("Lists things.\n\nRate limit (counted per client):\n"
                + "- \"default\" allows 1 request per 1 second.");
    }

    @Test
    void anOperationWithoutResponsesGetsThe429() {
        Operation operation = OASFactory.createOperation();
        new LimitDocumentation(OASFactory.createOpenAPI()).document(operation, LIMITS);
        assertThat(operation.getResponses().getAPIResponses()).containsOnlyKeys("429");
    }

    @Test
    void anOperationWhoseLimitsAreAllInShadowModeGetsNo429NoHeaderAndNoComponents() {
        OpenAPI document = OASFactory.createOpenAPI();
        APIResponse ok = OASFactory.createAPIResponse().description("OK");
        Operation operation = OASFactory.createOperation()
                .responses(OASFactory.createAPIResponses().addAPIResponse("200", ok));

        new LimitDocumentation(document).document(operation,
                effective(Map.of("ratelimit.mode", "shadow"), limit("default", 3, 60)));

        assertThat(operation.getResponses().getAPIResponses()).containsOnlyKeys("200");
        assertThat(ok.getHeaders()).isNullOrEmpty();
        assertThat(document.getComponents()).isNull();
        assertThat(operation.getExtensions()).containsKey("x-ratelimit");
        assertThat(operation.getDescription()).contains("Shadow mode").doesNotContain("429");
    }

    @Test
    void eachLineStatesTheEffectiveSizeAndTheAlgorithmInTheLimitsOwnNumbers() {
        assertThat(line(Map.of(), limit("default", 3, 60))).isEqualTo(
                "\"default\" allows 3 requests per 60 seconds. Sliding window: a request counts for up to 60 seconds.");
        assertThat(line(Map.of("ratelimit.limits.default.permit-limit", "9",
                "ratelimit.limits.default.algorithm", "strict_window"), limit("default", 3, 60))).isEqualTo(
                "\"default\" allows 9 requests per 60 seconds. Strict window: never more than 9 requests in any span of "
                        + "60 seconds, at a sustained rate of 8/9 of that (8 per 60 seconds) for a client that keeps "
                        + "retrying.");
        assertThat(line(Map.of("ratelimit.limits.default.algorithm", "TOKEN_BUCKET"), limit("default", 7, 60)))
                .isEqualTo("\"default\" allows 7 requests per 60 seconds. Token bucket: a burst of 7 requests, then one "
                        + "every 8.57 seconds.");
        assertThat(line(Map.of("ratelimit.limits.x.algorithm", "token-bucket", "ratelimit.limits.x.window-seconds", "1"),
                limit("x", 1, 3600))).endsWith("a burst of 1 request, then one every 1 second.");
    }

    @Test
    void costScopeAndShadowModeAreSaid() {
        LimitDeclaration reports = declared(DeclaredOn.CLASS, "R", new RateLimitPolicy("reports", 10, 60,
                RateLimitAlgorithm.TOKEN_BUCKET), 4, RateLimitScope.PRINCIPAL);
        assertThat(line(Map.of("ratelimit.limits.reports.mode", "shadow"), reports)).isEqualTo(
                "\"reports\" allows 10 permits per 60 seconds. Each call costs 4 permits. Only requests that pass "
                        + "authorization count. Token bucket: a burst of 10 permits, then one every 6 seconds. "
                        + "Shadow mode: it is counted, but never refuses a request and sends no header.");
    }

    @Test
    void thePlansThatChangeALimitAreListedInTheirOrderAndTheOthersNot() {
        Map<String, String> config = Map.of("ratelimit.plans", "gold, silver, bronze",
                "ratelimit.plans.gold.limits.default.permit-limit", "10",
                "ratelimit.plans.silver.limits.default.mode", "off",
                "ratelimit.plans.bronze.limits.default.permit-limit", "3", // the same as everyone's: no change
                "ratelimit.plans.bronze.limits.other.permit-limit", "1");
        assertThat(line(config, limit("default", 3, 60))).startsWith(
                "\"default\" allows 3 requests per 60 seconds (plan \"gold\": 10 per 60 seconds; not limited for plan "
                        + "\"silver\").");
        assertThat(line(Map.of("ratelimit.plans", "gold", "ratelimit.limits.default.mode", "shadow",
                "ratelimit.plans.gold.limits.default.mode", "enforce",
                "ratelimit.plans.gold.limits.default.algorithm", "token_bucket"), limit("default", 3, 60))).startsWith(
                "\"default\" allows 3 requests per 60 seconds (plan \"gold\": 3 per 60 seconds, token bucket, enforced).");
    }

    @Test
    void aLimitOffForCallersInNoPlanIsDocumentedForThePlansThatTurnItOnAndLeftOutWhenNoneDoes() {
        Map<String, String> config = Map.of("ratelimit.plans", "free",
                "ratelimit.limits.default.mode", "off", "ratelimit.plans.free.limits.default.mode", "enforce",
                "ratelimit.plans.free.limits.default.permit-limit", "1");
        List<EffectiveLimit> limits = effective(config, limit("default", 3, 60), limit("other", 5, 60));
        assertThat(limits).hasSize(2);
        assertThat(LimitDescription.describe(limits.get(0)))
                .isEqualTo("\"default\" does not limit callers in no plan (plan \"free\": 1 per 60 seconds, enforced).");
        assertThat(limits.get(0).canRefuse()).isTrue();

        assertThat(effective(Map.of("ratelimit.mode", "off"), limit("default", 3, 60))).isEmpty();
        assertThat(effective(Map.of("ratelimit.plans", "free", "ratelimit.limits.default.mode", "off"),
                limit("default", 3, 60))).isEmpty();
    }

    @Test
    void anOperationWhoseLimitsCountOnlyFailuresByAddressAndByKeyGetsA429SayingSoAndRunningAgainChangesNothing() {
        OpenAPI document = OASFactory.createOpenAPI();
        Operation operation = OASFactory.createOperation().responses(OASFactory.createAPIResponses()
                .addAPIResponse("401", OASFactory.createAPIResponse().description("Wrong")));
        List<EffectiveLimit> limits = effective(Map.of(),
                LimitDeclaration.builder(DeclaredOn.METHOD, "Login.login(String)").name("login-address").permitLimit(5)
                        .windowSeconds(900).per(dev.ratelimit.core.RateLimitPer.ADDRESS).failuresOnly(true)
                        .algorithm(RateLimitAlgorithm.STRICT_WINDOW).build(),
                LimitDeclaration.builder(DeclaredOn.METHOD, "Login.login(String)").name("login-account").permitLimit(10)
                        .windowSeconds(3600).per(dev.ratelimit.core.RateLimitPer.ARGUMENT).failuresOnly(true)
                        .failureStatuses("401,403").build());

        new LimitDocumentation(document).document(operation, limits);
        new LimitDocumentation(document).document(operation, limits);

        APIResponse tooMany = operation.getResponses().getAPIResponse("429");
        assertThat(tooMany.getRef()).as("its own, not the shared component").isNull();
        assertThat(tooMany.getDescription()).endsWith("Counted: \"login-address\" counts only failed requests (status "
                + "400-599; a request that succeeds gives its permit back), per client address; \"login-account\" "
                + "counts only failed requests (status 401,403; a request that succeeds gives its permit back), per key "
                + "the request names (an account, say; never shown in the headers of an answer that is not a 429).");
        assertThat(tooMany.getHeaders()).containsKeys("Retry-After", "RateLimit-Policy");
        assertThat(operation.getDescription()).contains("\"login-address\" allows 5 failed requests per 900 seconds, "
                + "per client address.").contains("\"login-account\" allows 10 failed requests per 3600 seconds, per key");
        assertThat(operation.getExtensions().get(LimitDocumentation.EXTENSION).toString())
                .contains("per=ADDRESS", "failuresOnly=true", "failureStatuses=401,403", "per=ARGUMENT");
        assertThat(operation.getResponses().getAPIResponse("401").getHeaders()).containsKey("RateLimit-Policy");
    }

    @Test
    void anOperationWhoseLimitsCountEveryRequestOfEachClientReferencesTheShared429() {
        Operation operation = OASFactory.createOperation();
        new LimitDocumentation(OASFactory.createOpenAPI()).document(operation, LIMITS);
        assertThat(operation.getResponses().getAPIResponse("429").getRef())
                .isEqualTo("#/components/responses/" + RateLimitComponents.TOO_MANY_REQUESTS_RESPONSE);
    }
}
