package dev.ratelimit.core.engine;

import static dev.ratelimit.core.testing.EngineFixtures.beanMethod;
import static dev.ratelimit.core.testing.EngineFixtures.decideNow;
import static dev.ratelimit.core.testing.EngineFixtures.settings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitCaller;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.binding.NamedLimit;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.KeyParameter;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.LimitResolver;
import dev.ratelimit.core.declaration.MethodDeclarations;
import dev.ratelimit.core.declaration.ResolvedLimits;
import dev.ratelimit.core.headers.RateLimitHeaders;
import dev.ratelimit.core.live.LimitAdmin;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.core.testing.LogRecords;
import dev.ratelimit.core.testing.ManualClock;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.Principal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/**
 * Limits per address, per argument and of failures only on the engine: each part of a call site in its own partition
 * ({@code addr:<client>}, {@code arg:<digest>}), decided one after the other; a success gives a part that counts only
 * failures back (by the response's status, or by a bean method's outcome) and the headers show the count after it;
 * limits per argument stay out of an allowed request's headers; a refusal by a limit of failures only is to be
 * answered at once.
 */
class CountingWhatMattersTest {

    private final ManualClock clock = new ManualClock();
    private final InProcessRateLimitStore store = new InProcessRateLimitStore(10_000, clock);
    private final RateLimitEngine engine = RateLimitEngine.builder(settings(), store).clock(clock).build();

    private static LimitDeclaration.Builder declared(String name, int permitLimit, int windowSeconds) {
        return LimitDeclaration.builder(DeclaredOn.METHOD, "the test").name(name).permitLimit(permitLimit)
                .windowSeconds(windowSeconds);
    }

    /** A resource method's limits with a {@code @RateLimitKey String} at {@code key} (or none when negative). */
    private static ResolvedLimits resource(String where, int key, LimitDeclaration... declared) {
        return LimitResolver.resolve(null, MethodDeclarations.resourceMethod(where, List.of(), List.of(), List.of(declared))
                .withKeys(key < 0 ? List.of() : List.of(new KeyParameter(key, "java.lang.String", false, false)), true));
    }

    private static ResolvedLimits bean(String where, int key, LimitDeclaration... declared) {
        return LimitResolver.resolve(null, MethodDeclarations.beanMethod(where, List.of(), List.of(declared))
                .withKeys(key < 0 ? List.of() : List.of(new KeyParameter(key, "java.lang.String", false, false)), true));
    }

    /** A caller of a request from {@code address}, authenticated as {@code name} (null: anonymous). */
    private static RateLimitCaller from(String address, String name) {
        return new RateLimitCaller() {
            @Override
            public Principal principal() {
                return name == null ? null : () -> name;
            }

            @Override
            public String header(String header) {
                return null;
            }

            @Override
            public boolean isUserInRole(String role) {
                return false;
            }

            @Override
            public InetAddress clientAddress() {
                try {
                    return InetAddress.getByName(address);
                } catch (UnknownHostException e) {
                    throw new IllegalStateException(e);
                }
            }
        };
    }

    private static Map<String, String> headers(RequestLedger ledger) {
        Map<String, String> headers = new LinkedHashMap<>();
        RateLimitHeaders.write(ledger, headers::put);
        return headers;
    }

    @Test
    void aLimitPerAddressCountsEveryCallerOfOneAddressTogetherAndAnotherAddressApart() {
        BoundLimits limits = engine.binder().bindResourceMethod(resource("Login.login()", -1,
                declared("caller", 10, 60).build(), declared("login-address", 2, 900).per(RateLimitPer.ADDRESS).build()))
                .transport(); // two parts: the caller's, then the address's (the answer is the last part's decision)

        RateLimitDecision first = decideNow(engine, engine.ledger(from("192.0.2.1", "alice"), null), limits);
        RateLimitDecision second = decideNow(engine, engine.ledger(from("192.0.2.1", "bob"), null), limits);
        RateLimitDecision refused = decideNow(engine, engine.ledger(from("192.0.2.1", "carol"), null), limits);
        RateLimitDecision elsewhere = decideNow(engine, engine.ledger(from("198.51.100.7", "carol"), null), limits);

        assertThat(first.partition()).isEqualTo("addr:192.0.2.1");
        assertThat(second.outcome(0).remaining()).isZero();
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.refused()).extracting(o -> o.policy().name()).containsExactly("login-address");
        assertThat(elsewhere.allowed()).isTrue();
        assertThat(elsewhere.partition()).isEqualTo("addr:198.51.100.7");
    }

    @Test
    void aRefusalOfALaterPartGivesBackWhatTheEarlierPartsOfTheCallSpent() {
        BoundLimits limits = engine.binder().bind(bean("Sms.send(String)", 0,
                declared("caller", 10, 60).build(), declared("per-phone", 1, 60).per(RateLimitPer.ARGUMENT).build()));
        RequestLedger ledger = engine.ledger(from("192.0.2.1", "alice"), null);

        assertThat(DecisionStagesRead.decide(engine, ledger, limits, "+1 555 0100").allowed()).isTrue();
        RateLimitDecision refused = DecisionStagesRead.decide(engine, engine.ledger(from("192.0.2.1", "alice"), null),
                limits, " +1 555 0100 ");

        assertThat(refused.allowed()).isFalse();
        assertThat(refused.partition()).startsWith("arg:");
        RateLimitDecision caller = DecisionStagesRead.decide(engine, engine.ledger(from("192.0.2.1", "alice"), null),
                limits, "+1 555 0199");
        assertThat(caller.allowed()).isTrue();
        RequestLedger last = engine.ledger(from("192.0.2.1", "alice"), null);
        DecisionStagesRead.decide(engine, last, limits, "+1 555 0198");
        assertThat(headers(last).get(RateLimitHeaders.RATELIMIT)).as("the refused call's caller permit came back")
                .contains("\"caller\";r=7");
    }

    @Test
    void aSuccessStatusGivesAFailuresOnlyPartBackAndAFailureStatusKeepsIt() {
        BoundLimits limits = engine.binder().bindResourceMethod(resource("Login.login()", -1,
                declared("login-address", 5, 900).per(RateLimitPer.ADDRESS).failuresOnly(true)
                        .algorithm(RateLimitAlgorithm.STRICT_WINDOW).build())).transport();

        RequestLedger success = engine.ledger(from("192.0.2.9", null), null);
        decideNow(engine, success, limits);
        engine.settle(success, 200);
        RequestLedger failure = engine.ledger(from("192.0.2.9", null), null);
        decideNow(engine, failure, limits);
        engine.settle(failure, 401);
        RequestLedger serverError = engine.ledger(from("192.0.2.9", null), null);
        decideNow(engine, serverError, limits);
        engine.settle(serverError, 503);
        RequestLedger again = engine.ledger(from("192.0.2.9", null), null);
        decideNow(engine, again, limits);
        engine.settle(again, 302);

        assertThat(headers(success).get(RateLimitHeaders.RATELIMIT)).as("after it gave back").startsWith("\"login-address\";r=5");
        assertThat(headers(failure).get(RateLimitHeaders.RATELIMIT)).startsWith("\"login-address\";r=4");
        assertThat(headers(serverError).get(RateLimitHeaders.RATELIMIT)).as("400-599: a server error keeps it")
                .startsWith("\"login-address\";r=3");
        assertThat(headers(again).get(RateLimitHeaders.RATELIMIT)).as("a redirect is a success").startsWith("\"login-address\";r=3");
    }

    @Test
    void aStatusOutsideTheFailureStatusesIsASuccess() {
        BoundLimits limits = engine.binder().bindResourceMethod(resource("Api.get()", -1,
                declared("tokens", 2, 60).per(RateLimitPer.ADDRESS).failuresOnly(true).failureStatuses("401,403").build()))
                .transport();
        for (int status : new int[] {404, 500, 200, 401, 403}) {
            RequestLedger ledger = engine.ledger(from("192.0.2.10", null), null);
            assertThat(decideNow(engine, ledger, limits).allowed()).as("status %d", status).isTrue();
            engine.settle(ledger, status);
        }
        assertThat(decideNow(engine, engine.ledger(from("192.0.2.10", null), null), limits).allowed())
                .as("only the 401 and the 403 counted").isFalse();
    }

    @Test
    void twentyCallsInFlightAgainstAFailuresOnlyLimitOfFiveAdmitFive() {
        BoundLimits limits = engine.binder().bindResourceMethod(resource("Login.login()", -1,
                declared("login-address", 5, 900).per(RateLimitPer.ADDRESS).failuresOnly(true).build())).transport();
        int admitted = 0;
        for (int i = 0; i < 20; i++) {
            admitted += decideNow(engine, engine.ledger(from("192.0.2.11", null), null), limits).allowed() ? 1 : 0;
        }
        assertThat(admitted).as("taken on admission: the outcomes are not known yet").isEqualTo(5);
    }

    @Test
    void aBeanMethodsSuccessGivesBackItsFailuresOnlyPartsButNotItsOthers() {
        BoundLimits limits = engine.binder().bind(bean("Codes.verify(String)", 0,
                declared("every", 10, 60).build(), declared("wrong-codes", 3, 60).per(RateLimitPer.ARGUMENT)
                        .failuresOnly(true).build()));
        RequestLedger ledger = engine.ledger(from("192.0.2.12", "alice"), null);
        RateLimitDecision decision = DecisionStagesRead.decide(engine, ledger, limits, "123456");
        engine.succeeded(ledger, decision);
        engine.settle(ledger, 500); // a bean's part is the outcome's to judge, never the status's

        RequestLedger next = engine.ledger(from("192.0.2.12", "alice"), null);
        DecisionStagesRead.decide(engine, next, limits, "123456");
        Map<String, String> shown = headers(next);
        assertThat(shown.get(RateLimitHeaders.RATELIMIT)).as("every call counts in \"every\"").contains("\"every\";r=8")
                .doesNotContain("wrong-codes");
        assertThat(engine.admin().count("wrong-codes", engine.admin().keyPartition("wrong-codes", "123456"), null)
                .toCompletableFuture().join().remaining()).as("the success gave its permit back").isEqualTo(2);
    }

    @Test
    void aLimitPerArgumentStaysOutOfAnAllowedRequestsHeadersAndShowsInTheRefusalItCauses() {
        BoundLimits limits = engine.binder().bindAtInvocation(resource("Login.login(String)", 0,
                declared("login-account", 1, 3600).per(RateLimitPer.ARGUMENT).failuresOnly(true).build()));
        RequestLedger allowed = engine.ledger(from("192.0.2.13", null), null);
        DecisionStagesRead.decide(engine, allowed, limits, "carol");
        RequestLedger refused = engine.ledger(from("192.0.2.14", null), null);
        DecisionStagesRead.decide(engine, refused, limits, "Carol");

        assertThat(headers(allowed)).as("nothing else decided: no header at all").isEmpty();
        assertThat(headers(refused).get(RateLimitHeaders.RATELIMIT)).isEqualTo("\"login-account\";r=0;t=3600");
        assertThat(refused.answersRefusalAtOnce()).as("it counts only failures").isTrue();
    }

    @Test
    void aRefusalByALimitThatCountsEveryCallIsLeftToTheLastFilter() {
        BoundLimits limits = engine.binder().bindResourceMethod(resource("Api.get()", -1,
                declared("plain", 1, 60).build())).transport();
        decideNow(engine, engine.ledger(from("192.0.2.15", "x"), null), limits);
        RequestLedger refused = engine.ledger(from("192.0.2.15", "x"), null);
        decideNow(engine, refused, limits);

        assertThat(refused.refusal()).isNotNull();
        assertThat(refused.answersRefusalAtOnce()).isFalse();
    }

    @Test
    void outsideAnHttpRequestALimitPerAddressCountsUnderAddrUnknown() {
        BoundLimits limits = engine.binder().bind(bean("Job.run()", -1,
                declared("by-address", 5, 60).per(RateLimitPer.ADDRESS).build()));
        assertThat(decideNow(engine, engine.ledger("some-partition"), limits).partition()).isEqualTo("addr:unknown");
    }

    @Test
    void aSharedStoreWithoutAKeySecretFailsTheBindingOfALimitPerArgumentNamingTheKey() {
        RateLimitStore shared = new RateLimitStore() {
            @Override
            public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
                return store.acquire(partition, request, multiple);
            }

            @Override
            public CompletionStage<Void> release(RateLimitDecision decision) {
                return store.release(decision);
            }

            @Override
            public String storeName() {
                return "shared";
            }
        };
        ResolvedLimits perAccount = bean("Login.login(String)", 0,
                declared("login-account", 10, 3600).per(RateLimitPer.ARGUMENT).build());

        assertThatThrownBy(() -> RateLimitEngine.builder(settings(), shared).build().binder().bind(perAccount))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("ratelimit.key-secret is required").hasMessageContaining("\"login-account\"")
                .hasMessageContaining("shared");
        BoundLimits bound = RateLimitEngine.builder(settings("ratelimit.key-secret", "0123456789abcdef0123"), shared)
                .build().binder().bind(perAccount);
        assertThat(bound.isEmpty()).isFalse();
        assertThat(RateLimitEngine.builder(settings(), store).build().binder().bind(perAccount).isEmpty())
                .as("in process: a random secret per start").isFalse();
    }

    @Test
    void aLimitThatWaitsCannotShareACallWithAnotherPart() {
        assertThatThrownBy(() -> engine.binder().bind(bean("Partner.send(String)", 0,
                LimitDeclaration.builder(DeclaredOn.METHOD, "the test").policy(new RateLimitPolicy("partner", 2, 1))
                        .maxWaitMillis(1000).build(),
                declared("per-account", 5, 60).per(RateLimitPer.ARGUMENT).build())))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("Partner.send(String)").hasMessageContaining("\"partner\" may wait");
    }

    @Test
    void limitsSharingANameThatDisagreeOnFailureStatusesFailNamingBothCallSites() {
        engine.binder().bind(bean("A.a()", -1, declared("shared", 5, 60).failuresOnly(true).build()));
        assertThatThrownBy(() -> engine.binder().bind(bean("B.b()", -1, declared("shared", 5, 60).failuresOnly(true)
                .failureStatuses("401,403").build())))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("A.a()").hasMessageContaining("B.b()")
                .hasMessageContaining("only failures (400-599)").hasMessageContaining("only failures (401,403)");
    }

    @Test
    void theProgrammaticApiTakesTheKeyOfALimitPerArgumentAndRefusesAKeylessCall() {
        engine.binder().bind(bean("Login.login(String)", 0,
                declared("login-account", 2, 3600).per(RateLimitPer.ARGUMENT).build()));
        NamedLimit named = engine.binder().named("login-account");
        RequestLedger ledger = engine.ledger(from("192.0.2.20", null), null);

        RateLimitDecision decision = engine.decide(ledger, named.acquire(), 1, " Dave").join();
        assertThat(decision.partition()).isEqualTo(engine.admin().keyPartition("login-account", "dave"));
        assertThatThrownBy(() -> engine.decide(ledger, named.acquire(), 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"login-account\" counts per argument");
    }

    @Test
    void theAdminFindsACountByKeyOnlyForALimitPerArgument() {
        engine.binder().bind(bean("Login.login(String)", 0,
                declared("login-account", 2, 3600).per(RateLimitPer.ARGUMENT).build(),
                declared("login-address", 5, 900).per(RateLimitPer.ADDRESS).build()));
        engine.binder().bind(bean("Todos.all()", -1, declared("listing", 5, 60).build()));

        assertThat(engine.admin().keyPartition("login-account", " Dave")).startsWith("arg:");
        assertThatThrownBy(() -> engine.admin().keyPartition("login-address", "dave"))
                .isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage("ratelimit: the limit \"login-address\" counts per address, not per argument: find its count "
                        + "by the partition (.../partitions/{partition}), not by ?key=");
        assertThatThrownBy(() -> engine.admin().keyPartition("listing", "dave"))
                .isExactlyInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"listing\" counts per caller");
        assertThatThrownBy(() -> engine.admin().keyPartition("nope\nWARNING: x", "dave"))
                .isInstanceOf(LimitAdmin.UnknownLimitException.class)
                .hasMessage("ratelimit: no limit is named \"nope\\nWARNING: x\"");
    }

    @Test
    void aResetIsLoggedWithEveryValueItWasAskedWithEscaped() {
        engine.binder().bind(bean("Todos.all()", -1, declared("listing", 5, 60).build()));
        try (LogRecords log = LogRecords.on(LogRecords.LIBRARY).quiet()) {
            engine.admin().reset("listing", "X-Api-Key:a\nWARNING: ratelimit: forged\r\u2028", null,
                    "\"ops\nINFO: x\" over HTTP").toCompletableFuture().join();

            assertThat(log.records()).singleElement().extracting(java.util.logging.LogRecord::getMessage).asString()
                    .isEqualTo("ratelimit: the count of \"listing\" for the partition \"X-Api-Key:a\\nWARNING: ratelimit: "
                            + "forged\\r\\u2028\" was started afresh, asked by \"ops\\nINFO: x\" over HTTP");
        }
    }

    @Test
    void aLiveChangeThatMakesALimitPerArgumentWithoutAKeyIsRefusedAndThePreviousValuesStay() {
        BoundLimits limits = engine.binder().bind(bean("Codes.verify(String)", -1, declared("codes", 1, 60).build()));
        assertThatThrownBy(() -> engine.apply(settings("ratelimit.limits.codes.per", "argument")))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("Codes.verify(String)").hasMessageContaining("ratelimit.limits.codes.per");
        assertThatThrownBy(() -> engine.apply(settings("ratelimit.limits.codes.failures-only", "true",
                "ratelimit.limits.codes.max-wait-millis", "100")))
                .isInstanceOf(InvalidRateLimitException.class).hasMessageContaining("counts only failures");

        RequestLedger ledger = engine.ledger(from("192.0.2.30", "alice"), null);
        assertThat(decideNow(engine, ledger, limits).partition()).as("still per caller").isEqualTo("sub:alice");
        assertThat(decideNow(engine, engine.ledger(from("192.0.2.31", "alice"), null), limits).allowed()).isFalse();
    }

    @Test
    void aResourceMethodsLimitPerAddressFailsWhereTheRuntimeCannotTellAddresses() {
        assertThatThrownBy(() -> engine.binder().bindResourceMethod(resource("Login.login()", -1,
                declared("login-address", 5, 900).per(RateLimitPer.ADDRESS).build()), false))
                .isInstanceOf(InvalidRateLimitException.class).hasMessageContaining("Login.login()")
                .hasMessageContaining("\"login-address\" counts per ADDRESS, but this runtime cannot tell client addresses");
        assertThat(engine.binder().bindResourceMethod(resource("Other.get()", -1, declared("plain", 5, 60).build()), false)
                .decides()).as("a limit per caller needs no address").isTrue();
    }

    /** The engine's entry point with a key, read as the interceptor reads it. */
    private static final class DecisionStagesRead {
        static RateLimitDecision decide(RateLimitEngine engine, RequestLedger ledger, BoundLimits limits, Object key) {
            return DecisionStages.join(engine.decide(ledger, limits, 1, key));
        }
    }
}
