package dev.ratelimit.openapi.internal.check;

import static dev.ratelimit.openapi.Limits.declared;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.RateLimit;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.openapi.internal.index.IndexFile;
import dev.ratelimit.openapi.internal.index.IndexedApplication;
import dev.ratelimit.openapi.internal.index.IndexedMethod;
import dev.ratelimit.openapi.internal.index.ResourceIndex;
import dev.ratelimit.openapi.testapp.AccountResource;
import dev.ratelimit.openapi.testapp.Item;
import dev.ratelimit.openapi.testapp.ItemResource;
import dev.ratelimit.openapi.testapp.ReviewResource;
import dev.ratelimit.openapi.testapp.ShopApplication;
import jakarta.ws.rs.GET;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The start-up check on the test application, whose index this build wrote. */
class IndexCheckTest {

    private final IndexCheck check = IndexCheck.load(IndexCheckTest.class.getClassLoader());

    @Test
    void methodsWhoseIndexAgreesWithTheCodeAreNotReported() throws Exception {
        assertThat(check.check(ItemResource.class, ItemResource.class.getMethod("all"))).isNull();
        assertThat(check.check(ItemResource.class, ItemResource.class.getMethod("one", long.class))).isNull();
        assertThat(check.check(ItemResource.class, ItemResource.class.getMethod("create", Item.class))).isNull();
        assertThat(check.check(ReviewResource.class, ReviewResource.class.getMethod("all"))).isNull();
        assertThat(check.check(AccountResource.class, AccountResource.class.getMethod("all"))).isNull();
        assertThat(check.check(ItemResource.class, ItemResource.class.getMethod("report"))).isNull();
    }

    @Test
    void aLimitedMethodWithoutAnyIndexIsReportedWithTheFix() throws Exception {
        IndexCheck none = new IndexCheck(ResourceIndex.of(List.of()), null);
        assertThat(none.check(ItemResource.class, ItemResource.class.getMethod("all")))
                .contains("no META-INF/ratelimit/resource-methods.idx", "ItemResource.all()",
                        "<maven.compiler.proc>full</maven.compiler.proc>");
    }

    @Test
    void aLimitedMethodMissingFromTheIndexIsReported() throws Exception {
        IndexCheck other = new IndexCheck(ResourceIndex.of(List.of(new IndexFile("other", List.of(),
                List.of(new IndexedMethod("x.R", "GET", "/x", "x.R#x()", "R.x()", List.of(), List.of()))))), null);
        assertThat(other.check(ItemResource.class, ItemResource.class.getMethod("all")))
                .contains("ItemResource.all() has [\"default\" 3/60s] but is not in");
    }

    @Test
    void anIndexOlderThanTheCodeIsReported() throws Exception {
        LimitDeclaration old = declared(DeclaredOn.MODULE, "ShopApplication", "module", 10, 60);
        IndexCheck stale = new IndexCheck(ResourceIndex.of(List.of(new IndexFile("stale",
                List.of(new IndexedApplication(ShopApplication.class.getName(), "/api", List.of(old))),
                List.of(new IndexedMethod(ItemResource.class.getName(), "GET", "/items/{id}",
                        ItemResource.class.getName() + "#one(long)", "ItemResource.one(long)", List.of(), List.of()))))),
                ShopApplication.class);
        assertThat(stale.check(ItemResource.class, ItemResource.class.getMethod("one", long.class)))
                .contains("has [\"module\" 100/60s]", "says [\"module\" 10/60s]", "rebuild");
    }

    @Test
    void anIndexThatLacksTheAlgorithmOrCostOfTheCodeIsStale() throws Exception {
        // what an index of format 1 says of the report: no algorithm, no cost
        IndexCheck stale = new IndexCheck(ResourceIndex.of(List.of(new IndexFile("stale", List.of(),
                List.of(new IndexedMethod(ItemResource.class.getName(), "GET", "/items/report",
                        ItemResource.class.getName() + "#report()", "ItemResource.report()", List.of(),
                        List.of(declared(DeclaredOn.METHOD, "ItemResource.report()", "reports", 10, 60))))))), null);
        assertThat(stale.check(ItemResource.class, ItemResource.class.getMethod("report")))
                .contains("has [\"reports\" 10/60s STRICT_WINDOW cost 4]", "says [\"reports\" 10/60s]", "rebuild");
        IndexCheck agrees = new IndexCheck(ResourceIndex.of(List.of(new IndexFile("fresh", List.of(),
                List.of(new IndexedMethod(ItemResource.class.getName(), "GET", "/items/report",
                        ItemResource.class.getName() + "#report()", "ItemResource.report()", List.of(),
                        List.of(declared(DeclaredOn.METHOD, "ItemResource.report()",
                                new RateLimitPolicy("reports", 10, 60, RateLimitAlgorithm.STRICT_WINDOW), 4,
                                RateLimitScope.TRANSPORT))))))), null);
        assertThat(agrees.check(ItemResource.class, ItemResource.class.getMethod("report"))).isNull();
    }

    /** Not a root resource (no class-level {@code @Path}), so the processor leaves it out of this build's index. */
    public static class Backend {
        @GET
        @RateLimit(name = "backend", permitLimit = 2, windowSeconds = 60, per = RateLimitPer.APPLICATION)
        public String get() {
            return "found";
        }
    }

    @Test
    void whoseCountALimitSpendsIsComparedToo() throws Exception {
        IndexCheck fresh = new IndexCheck(backend(backend(2).per(RateLimitPer.APPLICATION).build()), null);
        assertThat(fresh.check(Backend.class, Backend.class.getMethod("get"))).isNull();
        IndexCheck stale = new IndexCheck(backend(backend(3).per(RateLimitPer.APPLICATION).build()), null);
        assertThat(stale.check(Backend.class, Backend.class.getMethod("get")))
                .contains("has [\"backend\" 2/60s per APPLICATION]", "says [\"backend\" 3/60s per APPLICATION]");
        // what an index of format 2 says of it: no per
        IndexCheck older = new IndexCheck(backend(backend(2).build()), null);
        assertThat(older.check(Backend.class, Backend.class.getMethod("get")))
                .contains("has [\"backend\" 2/60s per APPLICATION]", "says [\"backend\" 2/60s]", "rebuild");
    }

    private static LimitDeclaration.Builder backend(int permitLimit) {
        return LimitDeclaration.builder(DeclaredOn.METHOD, "Backend.get()").name("backend").permitLimit(permitLimit)
                .windowSeconds(60);
    }

    private static ResourceIndex backend(LimitDeclaration limit) {
        return ResourceIndex.of(List.of(new IndexFile("index", List.of(), List.of(new IndexedMethod(
                Backend.class.getName(), "GET", "/backend", Backend.class.getName() + "#get()", "Backend.get()",
                List.of(), List.of(limit))))));
    }

    @Test
    void aMethodWithoutLimitsIsNeverReported() throws Exception {
        IndexCheck none = new IndexCheck(ResourceIndex.of(List.of()), null);
        assertThat(none.check(ItemResource.class, ItemResource.class.getMethod("delete", long.class))).isNull();
    }
}
