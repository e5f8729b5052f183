package dev.ratelimit.openapi.internal.document;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitScope;
import dev.ratelimit.internal.resolve.Level;
import dev.ratelimit.internal.resolve.ResolvedLimit;
import java.util.List;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;
import org.junit.jupiter.api.Test;

/** Cases a generator rarely writes, on a model built with the runtime's own model classes (SmallRye here). */
class LimitDocumentationTest {

    private static final List<ResolvedLimit> LIMITS = List.of(
            new ResolvedLimit(new RateLimitPolicy("default", 1, 1, RateLimitScope.TRANSPORT), Level.METHOD));

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
        assertThat(operation.getDescription()).startsWith("Lists things.\n\nRate limit (counted per client): "
                + "\"default\" allows 1 request per 1 second.");
    }

    @Test
    void anOperationWithoutResponsesGetsThe429() {
        Operation operation = OASFactory.createOperation();
        new LimitDocumentation(OASFactory.createOpenAPI()).document(operation, LIMITS);
        assertThat(operation.getResponses().getAPIResponses()).containsOnlyKeys("429");
    }
}
