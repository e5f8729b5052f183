package dev.ratelimit.quarkus.deployment.devui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.MethodDeclarations;
import dev.ratelimit.quarkus.runtime.ResourceMethodLimits;
import io.quarkus.devui.spi.page.CardPageBuildItem;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Dev UI card: one row per limit that covers a resource method, as the resolver orders them (the module's only
 * where neither the class nor the method declares one), and the page's label counts the rows.
 */
class RateLimitDevUiProcessorTest {

    private static LimitDeclaration limit(DeclaredOn on, String place, String name, int permitLimit, int windowSeconds) {
        return LimitDeclaration.builder(on, place).name(name).permitLimit(permitLimit).windowSeconds(windowSeconds)
                .build();
    }

    private static ResourceMethodLimits method(int id, MethodDeclarations declarations) {
        return new ResourceMethodLimits(id, declarations, false, "ItemResource", "m", List.of());
    }

    @Test
    void eachLimitCoveringAResourceMethodIsARowInTheResolversOrderAndThePageCountsThem() {
        LimitDeclaration module = limit(DeclaredOn.MODULE, "ShopApplication", "module", 100, 60);
        LimitDeclaration reports = LimitDeclaration.builder(DeclaredOn.CLASS, "ItemResource").name("reports")
                .permitLimit(10).windowSeconds(60).algorithm(RateLimitAlgorithm.TOKEN_BUCKET).cost(4)
                .scope(RateLimitScope.PRINCIPAL).build();
        LimitDeclaration burst = limit(DeclaredOn.METHOD, "ItemResource.list()", "burst", 5, 1);
        List<ResourceMethodLimits> methods = List.of(
                method(0, MethodDeclarations.resourceMethod("ItemResource.list()", List.of(module), List.of(reports),
                        List.of(burst))),
                method(1, MethodDeclarations.resourceMethod("StatusResource.get()", List.of(module), List.of(),
                        List.of())),
                method(2, MethodDeclarations.resourceMethod("FreeResource.get()", List.of(), List.of(), List.of())));

        CardPageBuildItem card = RateLimitDevUiProcessor.card(methods);

        assertThat(card.getBuildTimeData()).containsOnlyKeys(RateLimitDevUiProcessor.LIMITS);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rows = (List<Map<String, Object>>) card.getBuildTimeData()
                .get(RateLimitDevUiProcessor.LIMITS).getContent();
        assertThat(rows).containsExactly(
                Map.of("method", "ItemResource.list()", "kind", "resource method", "name", "reports",
                        "permitLimit", 10, "windowSeconds", 60, "algorithm", "TOKEN_BUCKET", "cost", 4,
                        "scope", "PRINCIPAL", "declaredOn", "class"),
                Map.of("method", "ItemResource.list()", "kind", "resource method", "name", "burst",
                        "permitLimit", 5, "windowSeconds", 1, "algorithm", "SLIDING_WINDOW", "cost", 1,
                        "scope", "TRANSPORT", "declaredOn", "method"),
                Map.of("method", "StatusResource.get()", "kind", "resource method", "name", "module",
                        "permitLimit", 100, "windowSeconds", 60, "algorithm", "SLIDING_WINDOW", "cost", 1,
                        "scope", "TRANSPORT", "declaredOn", "module"));
        assertThat(rows.get(0).keySet()).as("the columns, in order").containsExactly("method", "kind", "name",
                "permitLimit", "windowSeconds", "algorithm", "cost", "scope", "declaredOn");
        assertThat(card.getPages()).hasSize(1);
        assertThat(card.getPages().get(0).build().getStaticLabel()).isEqualToIgnoringWhitespace("3");
        assertThat(card.getPages().get(0).build().getTitle()).isEqualTo("Limits");
    }

    @Test
    void anApplicationWithoutLimitsGetsAnEmptyTable() {
        CardPageBuildItem card = RateLimitDevUiProcessor.card(List.of(
                method(0, MethodDeclarations.resourceMethod("FreeResource.get()", List.of(), List.of(), List.of()))));

        assertThat((List<?>) card.getBuildTimeData().get(RateLimitDevUiProcessor.LIMITS).getContent()).isEmpty();
        assertThat(card.getPages().get(0).build().getStaticLabel()).isEqualToIgnoringWhitespace("0");
    }
}
