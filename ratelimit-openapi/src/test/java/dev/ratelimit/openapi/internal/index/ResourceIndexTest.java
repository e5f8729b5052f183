package dev.ratelimit.openapi.internal.index;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.cdi.Level;
import dev.ratelimit.cdi.ResolvedLimit;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResourceIndexTest {

    private static final IndexedLimit MODULE = IndexedLimit.of("module", 100, 60, RateLimitScope.TRANSPORT);
    private static final IndexedLimit OWN = new IndexedLimit(new RateLimitPolicy("own", 4, 1, RateLimitAlgorithm.TOKEN_BUCKET),
            2, RateLimitScope.PRINCIPAL);

    private static IndexedMethod method(String name, List<IndexedLimit> own) {
        return new IndexedMethod("lib.R", "GET", "/" + name, "lib.R#" + name + "()", List.of(), own);
    }

    @Test
    void theModuleCoversOnlyMethodsWithoutLimitsOfTheirOwn() {
        IndexFile app = new IndexFile("app", List.of(new IndexedApplication("app.App", "/api", List.of(MODULE))),
                List.of(method("plain", List.of()), method("own", List.of(OWN))));
        ResourceIndex index = ResourceIndex.of(List.of(app));
        assertThat(index.byJavaMethod("lib.R#plain()").get(0).limits()).containsExactly(
                new ResolvedLimit(MODULE.policy(), 1, RateLimitScope.TRANSPORT, Level.MODULE));
        assertThat(index.byJavaMethod("lib.R#own()").get(0).limits()).containsExactly(
                new ResolvedLimit(OWN.policy(), 2, RateLimitScope.PRINCIPAL, Level.METHOD));
        assertThat(index.byJavaMethod("lib.R#plain()").get(0).path()).isEqualTo("/api/plain");
        assertThat(index.byJavaMethod("lib.R#plain()").get(0).relativePath()).isEqualTo("/plain");
    }

    @Test
    void resourcesCompiledApartFromTheApplicationBelongToTheOnlyApplicationThereIs() {
        IndexFile library = new IndexFile("library.jar", List.of(), List.of(method("plain", List.of())));
        IndexFile app = new IndexFile("app", List.of(new IndexedApplication("app.App", "/api", List.of(MODULE))), List.of());
        ResourceIndex index = ResourceIndex.of(List.of(library, app));
        IndexedOperation plain = index.byJavaMethod("lib.R#plain()").get(0);
        assertThat(plain.path()).isEqualTo("/api/plain");
        assertThat(plain.limits()).extracting(ResolvedLimit::policy).containsExactly(MODULE.policy());
        assertThat(index.problems()).isEmpty();
    }

    @Test
    void withTwoApplicationsAndNoWayToTellAProblemIsReportedAndNoModuleAssumed() {
        IndexFile library = new IndexFile("library.jar", List.of(), List.of(method("plain", List.of())));
        IndexFile apps = new IndexFile("apps", List.of(new IndexedApplication("app.A", "/a", List.of(MODULE)),
                new IndexedApplication("app.B", "/b", List.of())), List.of());
        ResourceIndex index = ResourceIndex.of(List.of(library, apps));
        IndexedOperation plain = index.byJavaMethod("lib.R#plain()").get(0);
        assertThat(plain.path()).isEqualTo("/plain");
        assertThat(plain.isLimited()).isFalse();
        assertThat(index.problems()).singleElement().asString().contains("library.jar", "app.A", "app.B");
    }

    @Test
    void noIndexIsAnEmptyIndex() {
        ResourceIndex index = ResourceIndex.load(new ClassLoader(null) {
        });
        assertThat(index.isEmpty()).isTrue();
        assertThat(index.operations()).isEmpty();
    }
}
