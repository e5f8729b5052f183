package dev.ratelimit.openapi.internal.index;

import static dev.ratelimit.openapi.Limits.declared;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResourceIndexTest {

    private static final LimitDeclaration MODULE = declared(DeclaredOn.MODULE, "App", "module", 100, 60);
    private static final LimitDeclaration OWN = declared(DeclaredOn.METHOD, "R.own()",
            new RateLimitPolicy("own", 4, 1, RateLimitAlgorithm.TOKEN_BUCKET), 2, RateLimitScope.PRINCIPAL);

    private static IndexedMethod method(String name, List<LimitDeclaration> own) {
        return new IndexedMethod("lib.R", "GET", "/" + name, "lib.R#" + name + "()", "R." + name + "()", List.of(), own);
    }

    @Test
    void theModuleCoversOnlyMethodsWithoutLimitsOfTheirOwn() {
        IndexFile app = new IndexFile("app", List.of(new IndexedApplication("app.App", "/api", List.of(MODULE))),
                List.of(method("plain", List.of()), method("own", List.of(OWN))));
        ResourceIndex index = ResourceIndex.of(List.of(app));
        assertThat(index.byJavaMethod("lib.R#plain()").get(0).limits()).containsExactly(MODULE);
        assertThat(index.byJavaMethod("lib.R#own()").get(0).limits()).containsExactly(OWN);
        assertThat(index.byJavaMethod("lib.R#plain()").get(0).resolved().where()).isEqualTo("R.plain()");
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
        assertThat(plain.limits()).containsExactly(MODULE);
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
    void whatTheResolverFindsWrongIsAProblemNamingTheIndexAndTheMethod() {
        IndexFile app = new IndexFile("app.jar", List.of(), List.of(method("zero",
                List.of(LimitDeclaration.builder(DeclaredOn.METHOD, "R.zero()").name("zero").permitLimit(0).build()))));
        assertThat(ResourceIndex.of(List.of(app)).problems()).containsExactly(
                "app.jar: @RateLimit on R.zero(): permitLimit must be >= 1, was 0");
    }

    @Test
    void noIndexIsAnEmptyIndex() {
        ResourceIndex index = ResourceIndex.load(new ClassLoader(null) {
        });
        assertThat(index.isEmpty()).isTrue();
        assertThat(index.operations()).isEmpty();
    }
}
