package dev.ratelimit.core.headers;

import static dev.ratelimit.core.testing.EngineFixtures.beanMethod;
import static dev.ratelimit.core.testing.EngineFixtures.decideNow;
import static dev.ratelimit.core.testing.EngineFixtures.resourceMethod;
import static dev.ratelimit.core.testing.EngineFixtures.spendNow;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.core.engine.TestCaller;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.core.testing.EngineFixtures;
import dev.ratelimit.core.testing.ManualClock;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The rate-limit headers (docs/responses.md, "Headers"; plans, algorithms, cost) of what a request decided, rendered
 * from its ledger.
 */
class RateLimitHeadersTest {

    private final ManualClock clock = new ManualClock();
    private InProcessRateLimitStore store = new InProcessRateLimitStore(10_000, clock);

    @Test
    void aHeaderIsFoundByItsNameWhateverItsCase() {
        assertThat(RateLimitHeaders.indexOf("RateLimit-Limit")).isZero();
        assertThat(RateLimitHeaders.indexOf(new String("RateLimit-Policy"))).isEqualTo(RateLimitHeaders.ALL.indexOf("RateLimit-Policy"));
        assertThat(RateLimitHeaders.indexOf("ratelimit")).isEqualTo(RateLimitHeaders.ALL.indexOf(RateLimitHeaders.RATELIMIT));
        assertThat(RateLimitHeaders.indexOf("RETRY-AFTER")).isEqualTo(RateLimitHeaders.ALL.indexOf(RateLimitHeaders.RETRY_AFTER));
        assertThat(RateLimitHeaders.indexOf("Content-Type")).isEqualTo(-1);
    }

    // ---------------------------------------------------------------- the example of docs/responses.md, "Headers"

    @Test
    void firstRequestOfTheSpecExampleGetsItsHeaders() {
        RateLimitEngine engine = engine();
        BoundLimits all = engine.binder().bindResourceMethod(resourceMethod("TodoResource.all()", limit("default", 3, 60))).transport();

        Map<String, String> headers = request(engine, all);

        assertThat(headers).containsExactly(
                entry("RateLimit-Limit", "3"),
                entry("RateLimit-Remaining", "2"),
                entry("RateLimit-Reset", "60"),
                entry("RateLimit-Policy", "\"default\";q=3;w=60"),
                entry("RateLimit", "\"default\";r=2;t=60"));
    }

    @Test
    void fourthRequestOfTheSpecExampleEighteenSecondsLaterGetsA429sHeaders() {
        RateLimitEngine engine = engine();
        BoundLimits all = engine.binder().bindResourceMethod(resourceMethod("TodoResource.all()", limit("default", 3, 60))).transport();
        request(engine, all);
        clock.advanceSeconds(5);
        request(engine, all);
        request(engine, all);
        clock.advanceSeconds(13);

        Map<String, String> headers = request(engine, all);

        assertThat(headers).containsOnly(
                entry("RateLimit-Limit", "3"),
                entry("RateLimit-Remaining", "0"),
                entry("RateLimit-Reset", "42"),
                entry("Retry-After", "42"),
                entry("RateLimit-Policy", "\"default\";q=3;w=60"),
                entry("RateLimit", "\"default\";r=0;t=42"));
    }

    @Test
    void waitOfLessThanASecondIsAnnouncedAsOneSecondNeverZero() {
        RateLimitEngine engine = engine();
        BoundLimits burst = engine.binder().bindResourceMethod(resourceMethod("TodoResource.create()", limit("burst", 1, 1))).transport();
        request(engine, burst);
        clock.advanceMillis(999);

        Map<String, String> headers = request(engine, burst);

        assertThat(headers).contains(entry("Retry-After", "1"), entry("RateLimit-Reset", "1"));
        assertThat(headers.get("RateLimit")).isEqualTo("\"burst\";r=0;t=1");
    }

    // ---------------------------------------------------------------- several limits

    @Test
    void allowedRequestDescribesItsLastLimitAndListsEveryLimitInOrder() {
        RateLimitEngine engine = engine("ratelimit.global.permit-limit", "1000");
        LimitDeclaration global = LimitDeclaration.global(engine.settings().global(), RateLimitScope.TRANSPORT);
        BoundLimits create = engine.binder().bindResourceMethod(resourceMethod("TodoResource.create()", global, limit("burst", 5, 1), limit("hourly", 500, 3600))).transport();

        Map<String, String> headers = request(engine, create);

        assertThat(headers).containsExactly(
                entry("RateLimit-Limit", "500"),
                entry("RateLimit-Remaining", "499"),
                entry("RateLimit-Reset", "3600"),
                entry("RateLimit-Policy", "\"application\";q=1000;w=60, \"burst\";q=5;w=1, \"hourly\";q=500;w=3600"),
                entry("RateLimit", "\"application\";r=999;t=60, \"burst\";r=4;t=1, \"hourly\";r=499;t=3600"));
    }

    @Test
    void limitsOfEveryCallSiteOfTheRequestAreListed() {
        RateLimitEngine engine = engine();
        BoundLimits resource = engine.binder().bindResourceMethod(resourceMethod("TodoResource.export()", limit("module", 100, 60))).transport();
        BoundLimits bean = engine.binder().bind(beanMethod("ExportService.export()", limit("export", 2, 10)));
        RequestLedger ledger = engine.ledger("p");
        decideNow(engine, ledger, resource);
        decideNow(engine, ledger, bean);

        Map<String, String> headers = render(ledger);

        assertThat(headers).contains(
                entry("RateLimit-Limit", "2"),
                entry("RateLimit-Remaining", "1"),
                entry("RateLimit-Policy", "\"module\";q=100;w=60, \"export\";q=2;w=10"),
                entry("RateLimit", "\"module\";r=99;t=60, \"export\";r=1;t=10"));
    }

    @Test
    void refusingLimitsComeLastWithTheLongestWaitAsHeadline() {
        RateLimitEngine engine = engine();
        BoundLimits limits = engine.binder().bindResourceMethod(resourceMethod("TodoResource.all()", limit("a", 1, 60), limit("b", 10, 60), limit("c", 1, 30))).transport();
        request(engine, limits);
        clock.advanceSeconds(5);

        Map<String, String> headers = request(engine, limits);

        assertThat(headers).containsOnly(
                entry("RateLimit-Limit", "1"),
                entry("RateLimit-Remaining", "0"),
                entry("RateLimit-Reset", "55"),
                entry("Retry-After", "55"),
                entry("RateLimit-Policy", "\"b\";q=10;w=60, \"c\";q=1;w=30, \"a\";q=1;w=60"),
                entry("RateLimit", "\"b\";r=9;t=55, \"c\";r=0;t=25, \"a\";r=0;t=55"));
    }

    @Test
    void limitsGivenBackAreListedWithTheirPermitsBack() {
        RateLimitEngine engine = engine();
        BoundLimits resource = engine.binder().bindResourceMethod(resourceMethod("TodoResource.export()", limit("module", 100, 60))).transport();
        BoundLimits bean = engine.binder().bind(beanMethod("ExportService.export()", limit("export", 1, 10)));
        decideNow(engine, engine.ledger("p"), bean);
        clock.advanceSeconds(4);
        RequestLedger ledger = engine.ledger("p");
        decideNow(engine, ledger, resource);
        decideNow(engine, ledger, bean);
        engine.giveBack(ledger);

        Map<String, String> headers = render(ledger);

        assertThat(headers).containsOnly(
                entry("RateLimit-Limit", "1"),
                entry("RateLimit-Remaining", "0"),
                entry("RateLimit-Reset", "6"),
                entry("Retry-After", "6"),
                entry("RateLimit-Policy", "\"module\";q=100;w=60, \"export\";q=1;w=10"),
                entry("RateLimit", "\"module\";r=100;t=60, \"export\";r=0;t=6"));
    }

    @Test
    void sharedNameShowsTheHandlersOwnLimitWithTheRemainingOfTheCountItSpendsFrom() {
        RateLimitEngine engine = engine();
        BoundLimits small = engine.binder().bindResourceMethod(resourceMethod("A.a()", limit("api", 10, 60))).transport();
        BoundLimits large = engine.binder().bindResourceMethod(resourceMethod("B.b()", limit("api", 20, 60))).transport();
        request(engine, small);

        Map<String, String> headers = request(engine, large);

        assertThat(headers).contains(entry("RateLimit-Limit", "20"), entry("RateLimit-Remaining", "8"),
                entry("RateLimit-Policy", "\"api\";q=20;w=60"), entry("RateLimit", "\"api\";r=8;t=60"));
    }

    // ---------------------------------------------------------------- modes, plans, overrides

    @Test
    void shadowLimitsAreNeverWritten() {
        RateLimitEngine engine = engine("ratelimit.limits.burst.mode", "shadow");
        BoundLimits limits = engine.binder().bindResourceMethod(resourceMethod("TodoResource.create()", limit("default", 3, 60), limit("burst", 1, 60))).transport();
        request(engine, limits);

        Map<String, String> headers = request(engine, limits);

        assertThat(headers).containsExactly(
                entry("RateLimit-Limit", "3"),
                entry("RateLimit-Remaining", "1"),
                entry("RateLimit-Reset", "60"),
                entry("RateLimit-Policy", "\"default\";q=3;w=60"),
                entry("RateLimit", "\"default\";r=1;t=60"));
    }

    @Test
    void requestOfShadowLimitsOnlyWritesNothing() {
        RateLimitEngine engine = engine("ratelimit.mode", "shadow");
        BoundLimits limits = engine.binder().bindResourceMethod(resourceMethod("TodoResource.all()", limit("default", 1, 60))).transport();
        RequestLedger ledger = engine.ledger("p");
        decideNow(engine, ledger, limits);
        Map<String, String> headers = new LinkedHashMap<>();

        assertThat(RateLimitHeaders.write(ledger, headers::put)).isFalse();
        assertThat(headers).isEmpty();
    }

    @Test
    void formatsOfACallSiteFollowItsChangingLimits() {
        RateLimitEngine engine = engine("ratelimit.plans", "gold", "ratelimit.plans.gold.limits.default.permit-limit", "2000");
        BoundLimits all = engine.binder().bindResourceMethod(resourceMethod("TodoResource.all()", limit("default", 1500, 60))).transport();
        RateLimitHeaders.Formats formats = new RateLimitHeaders.Formats();
        for (int round = 0; round < 3; round++) {
            for (TestCaller caller : List.of(TestCaller.user("a" + round), TestCaller.user("g" + round, "gold"))) {
                RequestLedger ledger = engine.ledger(caller, null);
                decideNow(engine, ledger, all);
                Map<String, String> headers = new LinkedHashMap<>();
                RateLimitHeaders.write(ledger, formats, headers::put);
                String limit = caller.isUserInRole("gold") ? "2000" : "1500";
                assertThat(headers).contains(entry("RateLimit-Limit", limit),
                        entry("RateLimit-Policy", "\"default\";q=" + limit + ";w=60"),
                        entry("RateLimit", "\"default\";r=" + (Integer.parseInt(limit) - 1) + ";t=60"));
            }
        }
    }

    @Test
    void requestThatDecidedNothingWritesNothing() {
        RateLimitEngine engine = engine();
        Map<String, String> headers = new LinkedHashMap<>();

        assertThat(RateLimitHeaders.write(engine.ledger("p"), headers::put)).isFalse();
        assertThat(headers).isEmpty();
    }

    @Test
    void headersCarryTheEffectiveValuesOfTheCallersPlanAndOverrides() {
        RateLimitEngine engine = engine("ratelimit.plans", "gold",
                "ratelimit.limits.default.window-seconds", "30",
                "ratelimit.plans.gold.limits.default.permit-limit", "10");
        BoundLimits all = engine.binder().bindResourceMethod(resourceMethod("TodoResource.all()", limit("default", 3, 60))).transport();

        Map<String, String> gold = request(engine, all, TestCaller.user("alice", "gold"));
        Map<String, String> none = request(engine, all, TestCaller.user("bob"));

        assertThat(gold).contains(entry("RateLimit-Limit", "10"), entry("RateLimit-Policy", "\"default\";q=10;w=30"),
                entry("RateLimit", "\"default\";r=9;t=30"));
        assertThat(none).contains(entry("RateLimit-Limit", "3"), entry("RateLimit-Policy", "\"default\";q=3;w=30"));
    }

    @Test
    void requestLetThroughUncountedShowsTheWholeLimit() {
        store = new InProcessRateLimitStore(1, clock);
        RateLimitEngine engine = engine();
        BoundLimits all = engine.binder().bindResourceMethod(resourceMethod("TodoResource.all()", limit("default", 3, 60))).transport();
        request(engine, all);

        Map<String, String> headers = request(engine, all, TestCaller.user("bob"));

        assertThat(headers).contains(entry("RateLimit-Remaining", "3"), entry("RateLimit-Reset", "60"),
                entry("RateLimit", "\"default\";r=3;t=60"));
    }

    // ---------------------------------------------------------------- cost, debt, algorithms

    @Test
    void costShowsThePermitsLeft() {
        RateLimitEngine engine = engine();
        BoundLimits report = engine.binder().bindResourceMethod(resourceMethod("TodoResource.report()", EngineFixtures.limit(new RateLimitPolicy("reports", 10, 60), 4))).transport();

        assertThat(request(engine, report)).contains(entry("RateLimit", "\"reports\";r=6;t=60"));
        assertThat(request(engine, report)).contains(entry("RateLimit", "\"reports\";r=2;t=60"));
        assertThat(request(engine, report)).contains(entry("RateLimit", "\"reports\";r=0;t=60"),
                entry("Retry-After", "60"));
    }

    @Test
    void chargeIntoDebtShowsNoPermitsLeft() {
        RateLimitEngine engine = engine("ratelimit.limits.items.permit-limit", "50",
                "ratelimit.limits.items.window-seconds", "60");
        RequestLedger ledger = engine.ledger("p");

        spendNow(engine, ledger, engine.binder().named("items"), 80, true);
        Map<String, String> headers = render(ledger);

        assertThat(headers).containsExactly(
                entry("RateLimit-Limit", "50"),
                entry("RateLimit-Remaining", "0"),
                entry("RateLimit-Reset", "60"),
                entry("RateLimit-Policy", "\"items\";q=50;w=60"),
                entry("RateLimit", "\"items\";r=0;t=60"));
    }

    @Test
    void tokenBucketResetIsTheTimeUntilTheBucketIsFull() {
        RateLimitEngine engine = engine();
        BoundLimits bucket = engine.binder().bindResourceMethod(resourceMethod("TodoResource.all()", EngineFixtures.limit(new RateLimitPolicy("tb", 3, 60, RateLimitAlgorithm.TOKEN_BUCKET), 1))).transport();

        Map<String, String> first = request(engine, bucket);
        Map<String, String> second = request(engine, bucket);
        Map<String, String> third = request(engine, bucket);
        Map<String, String> refused = request(engine, bucket);

        assertThat(first).contains(entry("RateLimit-Remaining", "2"), entry("RateLimit-Reset", "20"),
                entry("RateLimit", "\"tb\";r=2;t=20"));
        assertThat(second).contains(entry("RateLimit", "\"tb\";r=1;t=40"));
        assertThat(third).contains(entry("RateLimit", "\"tb\";r=0;t=60"));
        assertThat(refused).contains(entry("Retry-After", "20"), entry("RateLimit-Reset", "20"),
                entry("RateLimit", "\"tb\";r=0;t=60"));
    }

    // ---------------------------------------------------------------- helpers

    private RateLimitEngine engine(String... keysAndValues) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            values.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return RateLimitEngine.builder(RateLimitSettings.of(values), store).build();
    }

    private static LimitDeclaration limit(String name, int permitLimit, int windowSeconds) {
        return EngineFixtures.limit(name, permitLimit, windowSeconds);
    }

    private static Map<String, String> request(RateLimitEngine engine, BoundLimits limits) {
        return request(engine, limits, TestCaller.user("alice"));
    }

    /** One request: decided, given back when refused (as the filters do), rendered. */
    private static Map<String, String> request(RateLimitEngine engine, BoundLimits limits, TestCaller caller) {
        RequestLedger ledger = engine.ledger(caller, null);
        decideNow(engine, ledger, limits);
        if (ledger.refusal() != null) {
            engine.giveBack(ledger);
        }
        return render(ledger);
    }

    /**
     * The headers written, in order; fails on a header written twice. Written twice: formatted anew, and with the
     * formats one call site keeps ({@link #FORMATS}, shared by every request of the test class, so that it is found
     * there as often as it is not), which must write the same.
     */
    private static Map<String, String> render(RequestLedger ledger) {
        Map<String, String> headers = new LinkedHashMap<>();
        RateLimitHeaders.write(ledger, (name, value) ->
                assertThat(headers.put(name, value)).as("%s written twice", name).isNull());
        Map<String, String> kept = new LinkedHashMap<>();
        for (int i = 0; i < 2; i++) {
            kept.clear();
            RateLimitHeaders.write(ledger, FORMATS, (name, value) -> kept.put(name, value));
            assertThat(kept).as("written with the formats of the call site").containsExactlyEntriesOf(headers);
        }
        return headers;
    }

    private static final RateLimitHeaders.Formats FORMATS = new RateLimitHeaders.Formats();
}
