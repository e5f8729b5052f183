package dev.ratelimit.core.engine;

import static dev.ratelimit.core.testing.EngineFixtures.beanMethod;
import static dev.ratelimit.core.testing.EngineFixtures.countsKept;
import static dev.ratelimit.core.testing.EngineFixtures.decideNow;
import static dev.ratelimit.core.testing.EngineFixtures.resourceMethod;
import static dev.ratelimit.core.testing.EngineFixtures.spend;
import static dev.ratelimit.core.testing.EngineFixtures.spendNow;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitCaller;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitPlanResolver;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.RateLimitStoreException;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.binding.NamedLimit;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.core.testing.EngineFixtures;
import dev.ratelimit.core.testing.LogRecords;
import dev.ratelimit.core.testing.ManualClock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The one request path: binding with configuration, modes and plans; exactly once
 * and all or nothing across call sites; shadow mode; metrics; the programmatic API; switching off.
 */
class RateLimitEngineTest {

    private final ManualClock clock = new ManualClock();
    private final RecordingMetrics metrics = new RecordingMetrics();
    private final LogRecords log = LogRecords.on(LogRecords.LIBRARY).quiet();
    private InProcessRateLimitStore store = new InProcessRateLimitStore(10_000, clock);

    @AfterEach
    void stopCapturing() {
        log.close();
    }

    // ---------------------------------------------------------------- binding: overrides and modes

    @Test
    void bindingAppliesConfigurationOverridesToEveryLimitIncludingTheGlobalOne() {
        RateLimitEngine engine = engine(
                "ratelimit.global.permit-limit", "1000",
                "ratelimit.limits.application.permit-limit", "2",
                "ratelimit.limits.module.window-seconds", "10",
                "ratelimit.limits.default.permit-limit", "5",
                "ratelimit.limits.default.algorithm", "token-bucket");
        LimitDeclaration global = LimitDeclaration.global(engine.settings().global(), RateLimitScope.TRANSPORT);
        BoundLimits limits = engine.binder().bindResourceMethod(resourceMethod("TodoResource.all()", global,
                limit("module", 100, 60), limit("default", 3, 60))).transport();

        RateLimitDecision first = decide(engine, limits, "p");

        assertThat(first.outcomes()).extracting(Outcome::policy).containsExactly(
                new RateLimitPolicy("application", 2, 60),
                new RateLimitPolicy("module", 100, 10),
                new RateLimitPolicy("default", 5, 60, RateLimitAlgorithm.TOKEN_BUCKET));
        assertThat(decide(engine, limits, "p").allowed()).isTrue();
        assertThat(decide(engine, limits, "p").refused()).extracting(o -> o.policy().name())
                .containsExactly("application");
    }

    @Test
    void limitWithModeOffIsLeftOutAsIfNotDeclared() {
        RateLimitEngine engine = engine("ratelimit.limits.burst.mode", "off");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.create()", limit("burst", 1, 60), limit("hourly", 5, 60)));

        RateLimitDecision first = decide(engine, limits, "p");
        RateLimitDecision second = decide(engine, limits, "p");

        assertThat(first.outcomes()).extracting(o -> o.policy().name()).containsExactly("hourly");
        assertThat(second.allowed()).isTrue();
        assertThat(second.outcome(0).remaining()).isEqualTo(3);
    }

    @Test
    void callSiteWhoseLimitsAreAllOffIsEmptyAndDecidesNothing() {
        RateLimitEngine engine = engine("ratelimit.mode", "off", "ratelimit.limits.hourly.mode", "enforce");
        BoundLimits off = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 1, 60), limit("burst", 1, 60)));
        BoundLimits hourly = engine.binder().bind(beanMethod("TodoResource.create()", limit("burst", 1, 60), limit("hourly", 5, 60)));
        RequestLedger ledger = engine.ledger("p");

        assertThat(off.isEmpty()).isTrue();
        assertThat(decideNow(engine, ledger, off)).isNull();
        assertThat(ledger.headline()).isNull();
        assertThat(hourly.isEmpty()).isFalse();
        assertThat(decideNow(engine, ledger, hourly).outcomes()).extracting(o -> o.policy().name()).containsExactly("hourly");
    }

    @Test
    void callSiteWithoutLimitsIsEmpty() {
        RateLimitEngine engine = engine();

        assertThat(engine.binder().bind(beanMethod("TodoResource.one(long)")).isEmpty()).isTrue();
    }

    // ---------------------------------------------------------------- plans

    @Test
    void planValuesApplyToThePlansCallersOnly() {
        RateLimitEngine engine = engine(
                "ratelimit.plans", "gold",
                "ratelimit.plans.gold.limits.default.permit-limit", "10");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));

        assertThat(admitted(engine, limits, TestCaller.user("bob"), 20)).isEqualTo(3);
        assertThat(admitted(engine, limits, TestCaller.user("alice", "gold"), 20)).isEqualTo(10);
        assertThat(decide(engine, limits, TestCaller.user("carol", "gold")).outcome(0).policy())
                .isEqualTo(new RateLimitPolicy("default", 10, 60));
    }

    @Test
    void planModeOffExemptsOnlyThatPlanFromThatLimit() {
        RateLimitEngine engine = engine(
                "ratelimit.plans", "gold,platinum",
                "ratelimit.plans.platinum.limits.default.mode", "off");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("module", 100, 60), limit("default", 3, 60)));

        assertThat(admitted(engine, limits, TestCaller.user("carol", "platinum"), 20)).isEqualTo(20);
        assertThat(decide(engine, limits, TestCaller.user("carol", "platinum")).outcomes())
                .extracting(o -> o.policy().name()).containsExactly("module");
        assertThat(admitted(engine, limits, TestCaller.user("alice", "gold"), 20)).isEqualTo(3);
        assertThat(admitted(engine, limits, TestCaller.user("bob"), 20)).isEqualTo(3);
    }

    @Test
    void callSiteWhoseOnlyLimitIsOffForAPlanDecidesNothingForItsCallers() {
        RateLimitEngine engine = engine("ratelimit.plans", "gold", "ratelimit.plans.gold.limits.export.mode", "off");
        BoundLimits limits = engine.binder().bind(beanMethod("ExportService.export()", limit("export", 1, 10)));
        RequestLedger gold = engine.ledger(TestCaller.user("alice", "gold"), null);

        assertThat(limits.isEmpty()).isFalse();
        assertThat(decideNow(engine, gold, limits)).isNull();
        assertThat(gold.headline()).isNull();
        assertThat(admitted(engine, limits, TestCaller.user("bob"), 5)).isEqualTo(1);
    }

    @Test
    void callerMovedToAnotherPlanStartsAFreshCountAndFindsTheOldOneOnReturn() {
        RateLimitEngine engine = engine(
                "ratelimit.plans", "gold",
                "ratelimit.plans.gold.limits.default.permit-limit", "10");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));
        TestCaller before = TestCaller.user("alice");
        TestCaller promoted = TestCaller.user("alice", "gold");

        assertThat(admitted(engine, limits, before, 5)).isEqualTo(3);
        RateLimitDecision inGold = decide(engine, limits, promoted);
        RateLimitDecision back = decide(engine, limits, before);

        assertThat(inGold.allowed()).isTrue();
        assertThat(inGold.outcome(0).remaining()).isEqualTo(9);
        assertThat(back.allowed()).isFalse();
    }

    @Test
    void eachPartitionHasItsOwnCount() {
        RateLimitEngine engine = engine();
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));

        assertThat(admitted(engine, limits, TestCaller.user("alice"), 5)).isEqualTo(3);
        assertThat(admitted(engine, limits, TestCaller.user("bob"), 5)).isEqualTo(3);
        assertThat(admitted(engine, limits, TestCaller.anonymous(), 5)).isEqualTo(3);
    }

    @Test
    void planResolverIsAskedAtMostOncePerRequest() {
        AtomicInteger asked = new AtomicInteger();
        RateLimitEngine engine = builder("ratelimit.plans", "gold",
                "ratelimit.limits.items.permit-limit", "50", "ratelimit.limits.items.window-seconds", "60")
                .planResolver(caller -> {
                    asked.incrementAndGet();
                    return "gold";
                })
                .build();
        BoundLimits transport = engine.binder().bindResourceMethod(resourceMethod("TodoResource.all()", limit("default", 3, 60))).transport();
        BoundLimits principal = engine.binder().bindResourceMethod(resourceMethod("TodoResource.all()", limit("delete", 2, 60))).transport();
        BoundLimits bean = engine.binder().bind(beanMethod("ExportService.export()", limit("export", 1, 10)));
        NamedLimit items = engine.binder().named("items");
        RequestLedger ledger = engine.ledger(TestCaller.user("alice"), null);

        decideNow(engine, ledger, transport);
        decideNow(engine, ledger, principal);
        decideNow(engine, ledger, bean);
        spendNow(engine, ledger, items, 2, false);

        assertThat(asked).hasValue(1);
        assertThat(ledger.planName()).isEqualTo("gold");
        assertThat(asked).hasValue(1);
    }

    @Test
    void planResolverIsNeverAskedWhenNoPlanIsConfigured() {
        AtomicInteger asked = new AtomicInteger();
        RateLimitEngine engine = builder().planResolver(caller -> {
            asked.incrementAndGet();
            return null;
        }).build();
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));

        decide(engine, limits, TestCaller.user("alice", "gold"));

        assertThat(asked).hasValue(0);
    }

    @Test
    void planResolverThatThrowsMeansNoPlanAndIsLoggedOnceNotPerRequest() {
        RateLimitPlanResolver broken = caller -> {
            throw new IllegalStateException("token service down");
        };
        RateLimitEngine engine = builder("ratelimit.plans", "gold",
                "ratelimit.plans.gold.limits.default.permit-limit", "10")
                .planResolver(broken).build();
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));
        RequestLedger ledger = engine.ledger(TestCaller.user("alice", "gold"), null);

        RateLimitDecision decision = decideNow(engine, ledger, limits);
        int admitted = 1 + admitted(engine, limits, TestCaller.user("alice", "gold"), 9);

        assertThat(decision.outcome(0).policy().permitLimit()).isEqualTo(3);
        assertThat(ledger.planName()).isNull();
        assertThat(admitted).isEqualTo(3);
        assertThat(log.messages(Level.WARNING, "plan resolver")).singleElement().asString()
                .contains("failed");
    }

    @Test
    void planResolverAnsweringAnUnknownPlanMeansNoPlanAndIsLoggedOnceNotPerRequest() {
        RateLimitEngine engine = builder("ratelimit.plans", "gold",
                "ratelimit.plans.gold.limits.default.permit-limit", "10")
                .planResolver(caller -> "diamond").build();
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));

        int admitted = admitted(engine, limits, TestCaller.user("alice"), 10);

        assertThat(admitted).isEqualTo(3);
        assertThat(metrics.count("default", "allowed", "none")).isEqualTo(3);
        assertThat(log.messages(Level.WARNING, "plan resolver")).singleElement().asString()
                .contains("\"diamond\"");
    }

    // ---------------------------------------------------------------- deployment failures and warnings

    @Test
    void costAboveTheLimitAfterAnOverrideFailsDeploymentNamingTheCallSiteAndTheValue() {
        RateLimitEngine engine = engine("ratelimit.limits.reports.permit-limit", "3");

        assertThatThrownBy(() -> engine.binder().bind(beanMethod("TodoResource.report()", limit("reports", 10, 60, 4))))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("TodoResource.report()")
                .hasMessageContaining("(3")
                .hasMessageContaining("was 4");
    }

    @Test
    void costAboveAPlansLimitFailsDeploymentNamingThePlan() {
        RateLimitEngine engine = engine("ratelimit.plans", "free", "ratelimit.plans.free.limits.reports.permit-limit", "2");

        assertThatThrownBy(() -> engine.binder().bind(beanMethod("TodoResource.report()", limit("reports", 10, 60, 4))))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("TodoResource.report()")
                .hasMessageContaining("\"free\"")
                .hasMessageContaining("was 4");
    }

    @Test
    void callSitesSharingANameWithDifferentAlgorithmsFailDeploymentNamingBoth() {
        RateLimitEngine engine = engine();
        engine.binder().bind(beanMethod("A.a()", limit("api", 10, 60)));

        assertThatThrownBy(() -> engine.binder().bind(beanMethod("B.b()",
                limit(new RateLimitPolicy("api", 10, 60, RateLimitAlgorithm.TOKEN_BUCKET), 1))))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("\"api\"")
                .hasMessageContaining("A.a()")
                .hasMessageContaining("B.b()")
                .hasMessageContaining("SLIDING_WINDOW")
                .hasMessageContaining("TOKEN_BUCKET");
    }

    @Test
    void differentlySizedSharedNameIsWarnedAboutOnceNamingBothCallSites() {
        RateLimitEngine engine = engine();

        engine.binder().bind(beanMethod("A.a()", limit("api", 10, 60)));
        engine.binder().bind(beanMethod("B.b()", limit("api", 20, 60)));
        engine.binder().bind(beanMethod("B.b()", limit("api", 20, 60)));
        engine.binder().bind(beanMethod("C.c()", limit("api", 10, 60)));

        assertThat(log.messages(Level.WARNING, "\"api\"")).singleElement().asString()
                .contains("A.a()")
                .contains("B.b()")
                .contains("10/60s")
                .contains("20/60s");
    }

    @Test
    void equallySizedSharedNameIsNotWarnedAbout() {
        RateLimitEngine engine = engine("ratelimit.limits.api.permit-limit", "30");

        engine.binder().bind(beanMethod("A.a()", limit("api", 30, 60)));
        engine.binder().bind(beanMethod("B.b()", limit("api", 30, 60, 5)));
        engine.binder().bind(beanMethod("C.c()", limit("api", 10, 60)));

        assertThat(log.messages(Level.WARNING)).isEmpty();
    }

    @Test
    void limitsSharingANameSpendTheirOwnCostFromOneCount() {
        RateLimitEngine engine = engine();
        BoundLimits bulk = engine.binder().bind(beanMethod("TodoResource.bulk()", limit("api", 10, 60, 4)));
        BoundLimits item = engine.binder().bind(beanMethod("TodoResource.item()", limit("api", 10, 60, 1)));

        assertThat(decide(engine, bulk, "p").outcome(0).remaining()).isEqualTo(6);
        assertThat(decide(engine, bulk, "p").outcome(0).remaining()).isEqualTo(2);
        RateLimitDecision refused = decide(engine, bulk, "p");
        RateLimitDecision single = decide(engine, item, "p");

        assertThat(refused.allowed()).isFalse();
        assertThat(single.allowed()).isTrue();
        assertThat(single.outcome(0).remaining()).isEqualTo(1);
    }

    // ---------------------------------------------------------------- exactly once, all or nothing

    @Test
    void resourceMethodLimitsAreDecidedOncePerLedger() {
        RateLimitEngine engine = engine();
        BoundLimits limits = engine.binder().bindResourceMethod(resourceMethod("TodoResource.all()", limit("default", 5, 60))).transport();
        RequestLedger ledger = engine.ledger("p");

        RateLimitDecision first = decideNow(engine, ledger, limits);
        RateLimitDecision again = decideNow(engine, ledger, limits);
        RateLimitDecision async = engine.decide(ledger, limits, 1).toCompletableFuture().join();

        assertThat(first.outcome(0).remaining()).isEqualTo(4);
        assertThat(again).isNull();
        assertThat(async).isNull();
        assertThat(decide(engine, limits, "p").outcome(0).remaining()).isEqualTo(3);
    }

    @Test
    void eachScopeOfAResourceMethodIsDecidedOncePerLedger() {
        RateLimitEngine engine = engine();
        BoundLimits transport = engine.binder().bindResourceMethod(resourceMethod("TodoResource.delete(long)", limit("default", 5, 60))).transport();
        BoundLimits principal = engine.binder().bindResourceMethod(resourceMethod("TodoResource.delete(long)", limit("delete", 2, 60))).transport();
        RequestLedger ledger = engine.ledger("p");

        assertThat(decideNow(engine, ledger, transport)).isNotNull();
        assertThat(decideNow(engine, ledger, principal)).isNotNull();
        assertThat(decideNow(engine, ledger, transport)).isNull();
        assertThat(decideNow(engine, ledger, principal)).isNull();
    }

    @Test
    void beanMethodLimitsAreDecidedOnEveryCall() {
        RateLimitEngine engine = engine();
        BoundLimits limits = engine.binder().bind(beanMethod("ExportService.export()", limit("export", 5, 60)));
        RequestLedger ledger = engine.ledger("p");

        RateLimitDecision first = decideNow(engine, ledger, limits);
        RateLimitDecision second = decideNow(engine, ledger, limits);

        assertThat(first.outcome(0).remaining()).isEqualTo(4);
        assertThat(second.outcome(0).remaining()).isEqualTo(3);
    }

    @Test
    void refusalByALaterCallSiteGivesBackTheEarlierPermitsExactlyOnce() {
        RateLimitEngine engine = engine();
        BoundLimits resource = engine.binder().bindResourceMethod(resourceMethod("TodoResource.export()", limit("module", 100, 60))).transport();
        BoundLimits bean = engine.binder().bind(beanMethod("ExportService.export()", limit("export", 1, 10)));
        RequestLedger first = engine.ledger("p");
        decideNow(engine, first, resource);
        decideNow(engine, first, bean);
        RequestLedger refused = engine.ledger("p");

        assertThat(decideNow(engine, refused, resource).outcome(0).remaining()).isEqualTo(98);
        assertThat(decideNow(engine, refused, bean).allowed()).isFalse();
        engine.giveBack(refused);
        engine.giveBack(refused);

        assertThat(decide(engine, resource, "p").outcome(0).remaining()).isEqualTo(98);
    }

    @Test
    void nothingIsDecidedInALedgerOnceItIsRefused() {
        RateLimitEngine engine = engine();
        BoundLimits export = engine.binder().bind(beanMethod("ExportService.export()", limit("export", 1, 10)));
        BoundLimits audit = engine.binder().bind(beanMethod("AuditService.log()", limit("audit", 10, 10)));
        decide(engine, export, "p");
        RequestLedger ledger = engine.ledger("p");

        assertThat(decideNow(engine, ledger, export).allowed()).isFalse();
        assertThat(decideNow(engine, ledger, audit)).isNull();
        assertThat(decide(engine, audit, "p").outcome(0).remaining()).isEqualTo(9);
    }

    @Test
    void refusedRequestSpendsNothingFromItsOtherLimits() {
        RateLimitEngine engine = engine();
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.create()", limit("hourly", 500, 3600), limit("burst", 1, 1), limit("module", 100, 60)));
        decide(engine, limits, "p");

        RateLimitDecision refused = decide(engine, limits, "p");
        clock.advanceSeconds(2);
        RateLimitDecision next = decide(engine, limits, "p");

        assertThat(refused.outcomes()).extracting(Outcome::state)
                .containsExactly(State.UNSPENT, State.REFUSED, State.UNSPENT);
        assertThat(next.outcomes()).extracting(Outcome::remaining).containsExactly(498, 0, 98);
    }

    @Test
    void inProcessStoreDecidesAtOnce() {
        RateLimitEngine engine = engine();
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));

        CompletionStage<RateLimitDecision> stage = engine.decide(engine.ledger("p"), limits, 1);

        assertThat(store.answersAtOnce()).isTrue();
        assertThat(stage.toCompletableFuture()).isCompleted();
        assertThat(stage.toCompletableFuture().join().outcome(0).remaining()).isEqualTo(2);
    }

    @Test
    void concurrentRequestsOfOnePartitionAreAdmittedExactlyUpToTheLimitAndRefusalsGiveEverythingBack()
            throws Exception {
        RateLimitEngine engine = engine();
        BoundLimits resource = engine.binder().bindResourceMethod(resourceMethod("TodoResource.export()", limit("module", 1000, 60))).transport();
        BoundLimits bean = engine.binder().bind(beanMethod("ExportService.export()", limit("export", 100, 60)));
        AtomicInteger admitted = new AtomicInteger();
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(8);
        java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
        List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
        try {
            for (int t = 0; t < 8; t++) {
                done.add(threads.submit(() -> {
                    start.await();
                    for (int i = 0; i < 50; i++) {
                        RequestLedger ledger = engine.ledger("p");
                        decideNow(engine, ledger, resource);
                        decideNow(engine, ledger, bean);
                        if (ledger.refusal() == null) {
                            admitted.incrementAndGet();
                        } else {
                            engine.giveBack(ledger);
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (java.util.concurrent.Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }

        assertThat(admitted).hasValue(100);
        assertThat(decide(engine, resource, "p").outcome(0).remaining()).isEqualTo(899);
    }

    // ---------------------------------------------------------------- shadow mode

    @Test
    void shadowLimitNeverRefusesAndSpendsWhileItHasPermits() {
        RateLimitEngine engine = engine("ratelimit.limits.burst.mode", "shadow");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.create()", limit("burst", 2, 60), limit("hourly", 100, 3600)));

        List<RateLimitDecision> decisions = List.of(decide(engine, limits, "p"), decide(engine, limits, "p"),
                decide(engine, limits, "p"), decide(engine, limits, "p"), decide(engine, limits, "p"));

        assertThat(decisions).allMatch(RateLimitDecision::allowed);
        assertThat(decisions).extracting(d -> d.outcome(0).state())
                .containsExactly(State.SPENT, State.SPENT, State.REFUSED, State.REFUSED, State.REFUSED);
        assertThat(decisions).extracting(d -> d.outcome(1).remaining()).containsExactly(99, 98, 97, 96, 95);
        assertThat(decisions.get(4).retryAfterSeconds()).isZero();
    }

    @Test
    void everyLimitIsInShadowModeWhenTheGlobalModeIsShadow() {
        RateLimitEngine engine = engine("ratelimit.mode", "shadow");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 1, 60)));

        assertThat(admitted(engine, limits, TestCaller.user("alice"), 5)).isEqualTo(5);
        assertThat(metrics.count("default", "shadow_refused")).isEqualTo(4);
    }

    @Test
    void shadowRefusalsAreCountedAndLoggedInOneLineNamingTheLimitWithACount() {
        RateLimitEngine engine = engine("ratelimit.limits.burst.mode", "shadow");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.create()", limit("burst", 2, 60), limit("hourly", 100, 3600)));

        for (int i = 0; i < 5; i++) {
            decide(engine, limits, "p");
        }

        assertThat(metrics.nonZero()).containsOnly(
                entry("burst/allowed/none", 2L),
                entry("burst/shadow_refused/none", 3L),
                entry("hourly/allowed/none", 5L));
        assertThat(log.messages(Level.INFO, "\"burst\"")).singleElement().asString()
                .contains("would have refused 1 request");
        assertThat(log.messages(Level.WARNING)).isEmpty();
    }

    @Test
    void eachShadowLimitIsLoggedInItsOwnLine() {
        RateLimitEngine engine = engine("ratelimit.mode", "shadow");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.create()", limit("burst", 1, 60), limit("hourly", 1, 3600)));

        for (int i = 0; i < 4; i++) {
            decide(engine, limits, "p");
        }

        assertThat(log.messages(Level.INFO)).hasSize(2);
        assertThat(log.messages(Level.INFO, "\"burst\"")).hasSize(1);
        assertThat(log.messages(Level.INFO, "\"hourly\"")).hasSize(1);
    }

    @Test
    void enforcedRefusalSpendsNothingFromShadowLimits() {
        RateLimitEngine engine = engine("ratelimit.limits.burst.mode", "shadow");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.create()", limit("burst", 5, 3600), limit("hourly", 1, 10)));
        decide(engine, limits, "p");

        RateLimitDecision refused = decide(engine, limits, "p");
        clock.advanceSeconds(11);
        RateLimitDecision next = decide(engine, limits, "p");

        assertThat(refused.allowed()).isFalse();
        assertThat(refused.refused()).extracting(o -> o.policy().name()).containsExactly("hourly");
        assertThat(refused.outcome(0).state()).isEqualTo(State.UNSPENT);
        assertThat(next.outcome(0).remaining()).isEqualTo(3);
        assertThat(metrics.count("burst", "shadow_refused")).isZero();
        assertThat(metrics.count("burst", "allowed")).isEqualTo(2);
    }

    // ---------------------------------------------------------------- metrics

    @Test
    void allowedAndRefusedAreCountedPerPolicyAndPlan() {
        RateLimitEngine engine = engine("ratelimit.plans", "gold");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 1, 60)));

        decide(engine, limits, TestCaller.user("bob"));
        decide(engine, limits, TestCaller.user("bob"));
        decide(engine, limits, TestCaller.user("alice", "gold"));

        assertThat(metrics.nonZero()).containsOnly(
                entry("default/allowed/none", 1L),
                entry("default/refused/none", 1L),
                entry("default/allowed/gold", 1L));
    }

    @Test
    void requestLetThroughByAFullStoreIsCountedUncounted() {
        store = new InProcessRateLimitStore(1, clock);
        RateLimitEngine engine = engine("ratelimit.max-tracked-partitions", "1");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));

        decide(engine, limits, "a");
        RateLimitDecision uncounted = decide(engine, limits, "b");

        assertThat(uncounted.outcome(0).state()).isEqualTo(State.UNCOUNTED);
        assertThat(metrics.nonZero()).containsOnly(
                entry("default/allowed/none", 1L),
                entry("default/uncounted/none", 1L));
    }

    @Test
    void storeFailureIsCountedFailed() {
        RateLimitStore broken = new RateLimitStore() {
            @Override
            public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
                return CompletableFuture.failedFuture(new IllegalStateException("down"));
            }

            @Override
            public CompletionStage<Void> release(RateLimitDecision decision) {
                return CompletableFuture.completedFuture(null);
            }
        };
        RateLimitEngine engine = RateLimitEngine.builder(settings(), broken).metrics(metrics).build();
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("module", 100, 60), limit("default", 3, 60)));

        assertThatThrownBy(() -> decide(engine, limits, "p")).isInstanceOf(RateLimitStoreException.class);
        assertThat(metrics.nonZero()).containsOnly(
                entry("module/failed/none", 1L),
                entry("default/failed/none", 1L));
    }

    @Test
    void refusedRequestIsCountedRefusedOnlyForTheRefusingLimit() {
        RateLimitEngine engine = engine();
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("module", 100, 60), limit("default", 1, 60)));

        decide(engine, limits, "p");
        decide(engine, limits, "p");

        assertThat(metrics.nonZero()).containsOnly(
                entry("module/allowed/none", 1L),
                entry("default/allowed/none", 1L),
                entry("default/refused/none", 1L));
    }

    @Test
    void givenBackLimitIsNotCountedRefused() {
        RateLimitEngine engine = engine();
        BoundLimits resource = engine.binder().bindResourceMethod(resourceMethod("TodoResource.export()", limit("module", 100, 60))).transport();
        BoundLimits bean = engine.binder().bind(beanMethod("ExportService.export()", limit("export", 1, 10)));
        decide(engine, bean, "p");
        RequestLedger ledger = engine.ledger("p");

        decideNow(engine, ledger, resource);
        decideNow(engine, ledger, bean);
        engine.giveBack(ledger);

        assertThat(metrics.count("module", "refused")).isZero();
        assertThat(metrics.count("export", "refused")).isEqualTo(1);
    }

    @Test
    void countersAreLookedUpWhenBindingNeverWhenDeciding() {
        RateLimitEngine engine = engine("ratelimit.plans", "gold",
                "ratelimit.limits.items.permit-limit", "50", "ratelimit.limits.items.window-seconds", "60");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("module", 100, 60), limit("default", 3, 60)));
        NamedLimit items = engine.binder().named("items");
        int afterBinding = metrics.lookups();

        for (int i = 0; i < 1000; i++) {
            RateLimitCaller caller = i % 2 == 0 ? TestCaller.user("u" + i % 7) : TestCaller.user("g" + i % 5, "gold");
            RequestLedger ledger = engine.ledger(caller, null);
            decideNow(engine, ledger, limits);
            spendNow(engine, ledger, items, 1, i % 3 == 0);
            clock.advanceMillis(10);
        }

        assertThat(metrics.count("default", "refused")).isPositive();
        assertThat(metrics.count("default", "allowed", "gold")).isPositive();
        assertThat(metrics.lookups()).isEqualTo(afterBinding);
    }

    // ---------------------------------------------------------------- the programmatic API

    @Test
    void unknownNameIsRejectedNamingIt() {
        RateLimitEngine engine = engine();

        assertThatIllegalArgumentException().isThrownBy(() -> engine.binder().named("nope")).withMessageContaining("\"nope\"");
    }

    @Test
    void permitsBelowOneAreRejectedNamingTheLimitAndTheValue() {
        RateLimitEngine engine = engine("ratelimit.limits.items.permit-limit", "50",
                "ratelimit.limits.items.window-seconds", "60");
        NamedLimit items = engine.binder().named("items");
        RequestLedger ledger = engine.ledger("p");

        assertThatIllegalArgumentException().isThrownBy(() -> spendNow(engine, ledger, items, 0, false))
                .withMessageContaining("\"items\"").withMessageContaining("was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> spendNow(engine, ledger, items, -3, true))
                .withMessageContaining("\"items\"").withMessageContaining("was -3");
        assertThatIllegalArgumentException().isThrownBy(() -> spend(engine, ledger, items, 0, false))
                .withMessageContaining("\"items\"");
        assertThat(ledger.headline()).isNull();
    }

    @Test
    void acquiringMoreThanTheLimitHoldsIsRejectedNamingTheLimitAndTheValue() {
        RateLimitEngine engine = engine("ratelimit.limits.items.permit-limit", "50",
                "ratelimit.limits.items.window-seconds", "60");
        NamedLimit items = engine.binder().named("items");
        RequestLedger ledger = engine.ledger("p");

        assertThatIllegalArgumentException().isThrownBy(() -> spendNow(engine, ledger, items, 51, false))
                .withMessageContaining("\"items\"").withMessageContaining("51").withMessageContaining("50");
        assertThat(spendNow(engine, ledger, items, 50, false).allowed()).isTrue();
    }

    @Test
    void limitDeclaredByConfigurationAloneIsSpentAllOrNothing() {
        RateLimitEngine engine = engine("ratelimit.limits.items.permit-limit", "50",
                "ratelimit.limits.items.window-seconds", "60");
        NamedLimit items = engine.binder().named("items");

        RateLimitDecision thirty = spendNow(engine, engine.ledger("p"), items, 30, false);
        RateLimitDecision tooMany = spendNow(engine, engine.ledger("p"), items, 21, false);
        RateLimitDecision rest = spendNow(engine, engine.ledger("p"), items, 20, false);

        assertThat(thirty.outcome(0).policy()).isEqualTo(new RateLimitPolicy("items", 50, 60));
        assertThat(thirty.outcome(0).remaining()).isEqualTo(20);
        assertThat(tooMany.allowed()).isFalse();
        assertThat(rest.allowed()).isTrue();
        assertThat(rest.outcome(0).remaining()).isZero();
        assertThat(metrics.nonZero()).containsOnly(entry("items/allowed/none", 2L), entry("items/refused/none", 1L));
    }

    @Test
    void chargeGoesIntoDebtAndNeverRefusesWhileAcquiresAreRefusedUntilPermitsReturn() {
        RateLimitEngine engine = engine("ratelimit.limits.items.permit-limit", "50",
                "ratelimit.limits.items.window-seconds", "60");
        NamedLimit items = engine.binder().named("items");

        RateLimitDecision debt = spendNow(engine, engine.ledger("p"), items, 60, true);
        RateLimitDecision more = spendNow(engine, engine.ledger("p"), items, 5, true);
        RateLimitDecision refused = spendNow(engine, engine.ledger("p"), items, 1, false);
        clock.advanceSeconds(61);
        RateLimitDecision later = spendNow(engine, engine.ledger("p"), items, 1, false);

        assertThat(debt.allowed()).isTrue();
        assertThat(debt.outcome(0).state()).isEqualTo(State.SPENT);
        assertThat(debt.outcome(0).remaining()).isZero();
        assertThat(more.allowed()).isTrue();
        assertThat(refused.allowed()).isFalse();
        assertThat(later.allowed()).isTrue();
        assertThat(later.outcome(0).remaining()).isEqualTo(49);
    }

    @Test
    void asynchronousSpendDecidesLikeSpendNow() throws Exception {
        RateLimitEngine engine = engine("ratelimit.limits.items.permit-limit", "50",
                "ratelimit.limits.items.window-seconds", "60");
        NamedLimit items = engine.binder().named("items");

        RateLimitDecision decision = spend(engine, engine.ledger("p"), items, 10, false)
                .toCompletableFuture().get(5, TimeUnit.SECONDS);

        assertThat(decision.outcome(0).remaining()).isEqualTo(40);
    }

    @Test
    void limitDeclaredByAnAnnotationSharesItsCountWithTheProgrammaticApi() {
        RateLimitEngine engine = engine();
        BoundLimits export = engine.binder().bind(beanMethod("ExportService.export()", limit("export", 2, 10)));
        NamedLimit named = engine.binder().named("export");

        assertThat(spendNow(engine, engine.ledger("p"), named, 2, false).allowed()).isTrue();
        assertThat(decide(engine, export, "p").allowed()).isFalse();
        assertThat(engine.binder().named("export")).isSameAs(named);
    }

    @Test
    void programmaticPermitsAreGivenBackWhenTheRequestIsRefused() {
        RateLimitEngine engine = engine("ratelimit.limits.items.permit-limit", "50",
                "ratelimit.limits.items.window-seconds", "60");
        NamedLimit items = engine.binder().named("items");
        BoundLimits export = engine.binder().bind(beanMethod("ExportService.export()", limit("export", 1, 10)));
        decide(engine, export, "p");
        RequestLedger ledger = engine.ledger("p");

        spendNow(engine, ledger, items, 30, false);
        decideNow(engine, ledger, export);
        engine.giveBack(ledger);

        assertThat(spendNow(engine, engine.ledger("p"), items, 50, false).allowed()).isTrue();
    }

    @Test
    void planValuesApplyToTheProgrammaticApi() {
        RateLimitEngine engine = engine("ratelimit.plans", "gold",
                "ratelimit.limits.items.permit-limit", "50", "ratelimit.limits.items.window-seconds", "60",
                "ratelimit.plans.gold.limits.items.permit-limit", "500");
        NamedLimit items = engine.binder().named("items");
        RequestLedger gold = engine.ledger(TestCaller.user("alice", "gold"), null);

        RateLimitDecision decision = spendNow(engine, gold, items, 200, false);

        assertThat(decision.outcome(0).remaining()).isEqualTo(300);
        assertThat(metrics.count("items", "allowed", "gold")).isEqualTo(1);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> spendNow(engine, engine.ledger(TestCaller.user("bob"), null), items, 200, false))
                .withMessageContaining("\"items\"");
    }

    // ---------------------------------------------------------------- switched off

    @Test
    void disabledLibraryBindsNothingAndDecidesNothing() {
        RateLimitEngine engine = engine("ratelimit.enabled", "false",
                "ratelimit.limits.items.permit-limit", "50", "ratelimit.limits.items.window-seconds", "60");
        BoundLimits bean = engine.binder().bind(beanMethod("ExportService.export()", limit("export", 1, 10)));
        BoundLimits resource = engine.binder().bindResourceMethod(resourceMethod("TodoResource.all()", limit("default", 1, 60))).transport();
        RequestLedger ledger = engine.ledger(TestCaller.user("alice"), null);

        assertThat(engine.enabled()).isFalse();
        assertThat(bean.isEmpty()).isTrue();
        assertThat(resource.isEmpty()).isTrue();
        for (int i = 0; i < 3; i++) {
            assertThat(decideNow(engine, ledger, bean)).isNull();
            assertThat(decideNow(engine, ledger, resource)).isNull();
            assertThat(spendNow(engine, ledger, engine.binder().named("items"), 5, false)).isNull();
        }
        assertThat(ledger.headline()).isNull();
        assertThat(ledger.headline()).isNull();
        assertThat(countsKept(store)).isZero();
        assertThat(metrics.nonZero()).isEmpty();
    }

    // ---------------------------------------------------------------- waiting for a decision

    @Test
    void awaitingACompletedStageGivesItsDecision() {
        RateLimitEngine engine = engine();
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));
        RateLimitDecision decision = decide(engine, limits, "p");

        assertThat(DecisionStages.join(CompletableFuture.completedFuture(decision))).isSameAs(decision);
    }

    @Test
    void awaitingAFailedStageBecomesAStoreFailureCarryingTheCause() {
        RateLimitEngine engine = engine();
        java.io.IOException down = new java.io.IOException("connection refused");

        assertThatThrownBy(() -> DecisionStages.join(CompletableFuture.failedFuture(down)))
                .isInstanceOf(RateLimitStoreException.class)
                .hasCause(down)
                .hasMessageContaining("connection refused");
    }

    @Test
    void awaitingAStoreFailurePassesItOnAsItIs() {
        RateLimitEngine engine = engine();
        RateLimitStoreException failed = new RateLimitStoreException("down", null);

        assertThatThrownBy(() -> DecisionStages.join(CompletableFuture.failedFuture(failed))).isSameAs(failed);
    }

    @Test
    void interruptedWaitBecomesAStoreFailureAndKeepsTheInterrupt() {
        RateLimitEngine engine = engine();
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> DecisionStages.join(new CompletableFuture<>()))
                    .isInstanceOf(RateLimitStoreException.class)
                    .hasCauseInstanceOf(InterruptedException.class);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    // ---------------------------------------------------------------- configuration keys and the start-up line

    @Test
    void keyNamingABoundLimitIsNotWarnedAboutAndOneNamingNothingIs() {
        RateLimitEngine engine = engine("ratelimit.limits.default.permit-limit", "10",
                "ratelimit.limits.defualt.permit-limit", "10");
        engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));

                assertThat(engine.binder().unknownKeyWarnings()).singleElement().asString()
                .startsWith("ratelimit.limits.defualt.permit-limit ");
    }

    @Test
    void keyNamingALimitThatIsOffIsNotWarnedAbout() {
        RateLimitEngine engine = engine("ratelimit.limits.default.mode", "off");
        engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));

        assertThat(engine.binder().unknownKeyWarnings()).isEmpty();
    }

    @Test
    void keyNamingADeclaredLimitIsNotWarnedAboutWhenTheLibraryIsDisabled() {
        RateLimitEngine engine = engine("ratelimit.enabled", "false", "ratelimit.limits.default.permit-limit", "10");
        engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));

        assertThat(engine.binder().unknownKeyWarnings()).isEmpty();
    }

    @Test
    void startUpDescriptionShowsEffectiveValuesCostModesAndPlans() {
        RateLimitEngine engine = engine("ratelimit.plans", "gold,platinum",
                "ratelimit.limits.default.window-seconds", "30",
                "ratelimit.limits.burst.mode", "shadow",
                "ratelimit.plans.gold.limits.default.permit-limit", "10",
                "ratelimit.plans.platinum.limits.default.mode", "off");

        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60), limit("burst", 5, 1), limit("reports", 10, 60, 4)));

        assertThat(limits.describe()).isEqualTo(
                "[\"default\" 3/30s (gold: 10/30s, platinum: off); \"burst\" 5/1s shadow; \"reports\" 10/60s cost 4]");
        assertThat(limits.where()).isEqualTo("TodoResource.all()");
    }

    // ---------------------------------------------------------------- helpers

    private RateLimitEngine engine(String... config) {
        return builder(config).build();
    }

    private RateLimitEngine.Builder builder(String... config) {
        return RateLimitEngine.builder(settings(config), store).metrics(metrics).clock(clock);
    }

    static RateLimitSettings settings(String... keysAndValues) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            values.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return RateLimitSettings.of(values);
    }

    static LimitDeclaration limit(String name, int permitLimit, int windowSeconds) {
        return limit(name, permitLimit, windowSeconds, 1);
    }

    static LimitDeclaration limit(String name, int permitLimit, int windowSeconds, int cost) {
        return EngineFixtures.limit(new RateLimitPolicy(name, permitLimit, windowSeconds), cost);
    }

    static LimitDeclaration limit(RateLimitPolicy policy, int cost) {
        return EngineFixtures.limit(policy, cost);
    }

    private static RateLimitDecision decide(RateLimitEngine engine, BoundLimits limits, String partition) {
        return decideNow(engine, engine.ledger(partition), limits);
    }

    private static RateLimitDecision decide(RateLimitEngine engine, BoundLimits limits, RateLimitCaller caller) {
        return decideNow(engine, engine.ledger(caller, null), limits);
    }

    /** How many of {@code attempts} requests by {@code caller} the limits admit, without moving the clock. */
    private static int admitted(RateLimitEngine engine, BoundLimits limits, RateLimitCaller caller, int attempts) {
        int admitted = 0;
        for (int i = 0; i < attempts; i++) {
            RateLimitDecision decision = decide(engine, limits, caller);
            if (decision == null || decision.allowed()) {
                admitted++;
            }
        }
        return admitted;
    }
}
