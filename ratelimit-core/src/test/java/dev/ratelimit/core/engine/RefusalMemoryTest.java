package dev.ratelimit.core.engine;

import static dev.ratelimit.core.engine.RateLimitEngineTest.limit;
import static dev.ratelimit.core.engine.RateLimitEngineTest.settings;
import static dev.ratelimit.core.testing.EngineFixtures.beanMethod;
import static dev.ratelimit.core.testing.EngineFixtures.decideNow;
import static dev.ratelimit.core.testing.EngineFixtures.resourceMethod;
import static dev.ratelimit.core.testing.EngineFixtures.spendNow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.binding.NamedLimit;
import dev.ratelimit.core.testing.EngineFixtures;
import dev.ratelimit.core.testing.ManualClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Refusals answered at home, through the engine, on a fake of a store that several instances share and
 * that announces give-backs and restarts ({@link SharedFakeStore}), on a manual clock: what is answered without the
 * store, that it is the store's answer counting down, and everything that ends it early.
 */
class RefusalMemoryTest {

    private final ManualClock clock = new ManualClock();
    private final SharedFakeStore store = new SharedFakeStore(clock);
    private final RecordingMetrics metrics = new RecordingMetrics();

    @Test
    void aRefusalIsAnsweredAtHomeUntilItsRetryAfterAsTheStoreWouldAnswerIt() {
        RateLimitEngine engine = engine("ratelimit.store.refusal-memory-millis", "60000");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("module", 100, 60), limit("default", 3, 60)));
        for (int i = 0; i < 3; i++) {
            assertThat(decideNow(engine, engine.ledger("p"), limits).allowed()).isTrue();
            clock.advanceSeconds(5);
        }
        assertThat(decideNow(engine, engine.ledger("p"), limits).allowed()).isFalse();
        assertThat(store.acquires).hasValue(4);

        for (int i = 0; i < 40; i++) {
            clock.advanceMillis(997);
            RateLimitDecision remembered = decideNow(engine, engine.ledger("p"), limits);
            RateLimitDecision storeNow = store.decide("p", remembered.request(), 1, false);
            assertThat(remembered.allowed()).isFalse();
            assertThat(remembered.outcomes()).as("the store's answer at this instant, at request %d", i)
                    .usingRecursiveFieldByFieldElementComparatorIgnoringFields("receipt")
                    .isEqualTo(storeNow.outcomes());
        }
        assertThat(store.acquires).as("no call to the store while the refusal holds").hasValue(4);
        assertThat(metrics.count("default", "refused")).as("counted as the store's refusals are").isEqualTo(41);
        assertThat(metrics.count("module", "allowed")).isEqualTo(3);

        clock.advanceSeconds(20); // 60 s after the first permit: it returned
        assertThat(decideNow(engine, engine.ledger("p"), limits).allowed()).isTrue();
        assertThat(store.acquires).hasValue(5);
    }

    @Test
    void nothingIsRememberedLongerThanTheRefusalMemory() {
        RateLimitEngine engine = engine("ratelimit.store.refusal-memory-millis", "1000");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 1, 60)));
        decideNow(engine, engine.ledger("p"), limits);
        decideNow(engine, engine.ledger("p"), limits);

        clock.advanceMillis(999);
        assertThat(decideNow(engine, engine.ledger("p"), limits).allowed()).isFalse();
        assertThat(store.acquires).hasValue(2);
        clock.advanceMillis(1);
        assertThat(decideNow(engine, engine.ledger("p"), limits).allowed()).isFalse();
        assertThat(store.acquires).as("asked again after a second, though its refusal holds 59 s more").hasValue(3);
    }

    @Test
    void aRequestAskingFewerPermitsGoesToTheStore() {
        RateLimitEngine engine = engine("ratelimit.limits.items.permit-limit", "5", "ratelimit.limits.items.window-seconds", "60");
        NamedLimit items = engine.binder().named("items");
        assertThat(spendNow(engine, engine.ledger("p"), items, 3, false).allowed()).isTrue();
        assertThat(spendNow(engine, engine.ledger("p"), items, 3, false).allowed()).isFalse();
        assertThat(spendNow(engine, engine.ledger("p"), items, 3, false).allowed()).isFalse();
        assertThat(store.acquires).hasValue(2);

        assertThat(spendNow(engine, engine.ledger("p"), items, 2, false).allowed()).as("two fit").isTrue();
        assertThat(store.acquires).hasValue(3);
    }

    @Test
    void allowedRequestsAlwaysGoToTheStore() {
        RateLimitEngine engine = engine();
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 10, 60)));
        decideNow(engine, engine.ledger("refused"), limits);
        for (int i = 0; i < 10; i++) {
            decideNow(engine, engine.ledger("refused"), limits);
        }
        for (int i = 0; i < 5; i++) {
            assertThat(decideNow(engine, engine.ledger("other-" + i), limits).allowed()).isTrue();
        }
        assertThat(store.acquires).hasValue(16);
    }

    @Test
    void callsThatMayWaitChargesAndShadowLimitsAlwaysGoToTheStore() {
        RateLimitEngine engine = engine("ratelimit.limits.trial.mode", "shadow",
                "ratelimit.limits.items.permit-limit", "1", "ratelimit.limits.items.window-seconds", "60");
        BoundLimits waits = engine.binder().bind(beanMethod("Partner.send()", EngineFixtures.limit(new RateLimitPolicy("partner", 1, 60), 100, RateLimitPer.CALLER)));
        BoundLimits shadow = engine.binder().bind(beanMethod("TodoResource.all()", limit("trial", 1, 60)));
        NamedLimit items = engine.binder().named("items");

        for (int i = 0; i < 3; i++) {
            decideNow(engine, engine.ledger("p"), waits);
        }
        assertThat(store.acquires).as("a call that may wait").hasValue(3);
        for (int i = 0; i < 3; i++) {
            assertThat(decideNow(engine, engine.ledger("p"), shadow).allowed()).isTrue();
        }
        assertThat(store.acquires).as("a shadow limit's would-refuse").hasValue(6);
        for (int i = 0; i < 3; i++) {
            spendNow(engine, engine.ledger("p"), items, 1, true);
        }
        assertThat(store.acquires).as("charges").hasValue(9);
        assertThat(spendNow(engine, engine.ledger("p"), items, 1, false).allowed()).isFalse();
        assertThat(spendNow(engine, engine.ledger("p"), items, 1, false).allowed()).isFalse();
        assertThat(store.acquires).as("the acquire after the charges is remembered").hasValue(10);
        spendNow(engine, engine.ledger("p"), items, 1, true);
        assertThat(store.acquires).as("a charge of a refused count").hasValue(11);
    }

    @Test
    void aGiveBackOnAnotherInstanceLetsTheRememberedCallerInAtOnce() {
        RateLimitEngine a = engine();
        RateLimitEngine b = engine();
        BoundLimits resourceA = a.binder().bindResourceMethod(resourceMethod("TodoResource.all()",
                limit("default", 2, 60))).transport();
        BoundLimits resourceB = b.binder().bindResourceMethod(resourceMethod("TodoResource.all()",
                limit("default", 2, 60))).transport();
        BoundLimits beanA = a.binder().bind(beanMethod("ExportService.export()", limit("export", 1, 60)));
        decideNow(a, a.ledger("p"), beanA); // the bean's only permit: the next request is refused by it
        decideNow(b, b.ledger("p"), resourceB);
        RequestLedger refusedLater = a.ledger("p");
        assertThat(decideNow(a, refusedLater, resourceA).allowed()).isTrue(); // the second permit of "default"
        assertThat(decideNow(b, b.ledger("p"), resourceB).allowed()).isFalse();
        assertThat(decideNow(b, b.ledger("p"), resourceB).allowed()).as("remembered").isFalse();
        int before = store.acquires.get();

        assertThat(decideNow(a, refusedLater, beanA).allowed()).isFalse();
        a.giveBack(refusedLater); // the request is refused: its "default" permit goes back, and is announced

        RateLimitDecision in = decideNow(b, b.ledger("p"), resourceB);
        assertThat(in.allowed()).isTrue();
        assertThat(store.acquires).hasValue(before + 2);
    }

    @Test
    void anAdminResetOnAnotherInstanceLetsTheRememberedCallerInAtOnce() throws Exception {
        RateLimitEngine a = engine();
        RateLimitEngine b = engine();
        a.binder().bind(beanMethod("TodoResource.all()", limit("default", 1, 60)));
        BoundLimits limits = b.binder().bind(beanMethod("TodoResource.all()", limit("default", 1, 60)));
        decideNow(b, b.ledger("p"), limits);
        decideNow(b, b.ledger("p"), limits);
        assertThat(decideNow(b, b.ledger("p"), limits).allowed()).isFalse();

        a.admin().reset("default", "p", null, "ops").toCompletableFuture().get(5, TimeUnit.SECONDS);

        assertThat(decideNow(b, b.ledger("p"), limits).allowed()).isTrue();
    }

    @Test
    void aResetOnThisInstanceLetsTheCallerInHereAtOnce() throws Exception {
        store.silent = true; // nothing announced: this instance knows what it did
        RateLimitEngine engine = engine();
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 1, 60)));
        decideNow(engine, engine.ledger("p"), limits);
        assertThat(decideNow(engine, engine.ledger("p"), limits).allowed()).isFalse();

        engine.admin().reset("default", "p", null, "ops").toCompletableFuture().get(5, TimeUnit.SECONDS);

        assertThat(decideNow(engine, engine.ledger("p"), limits).allowed()).isTrue();
    }

    @Test
    void aRaisedLimitAppliedLiveLetsTheRememberedCallerInAtOnce() {
        RateLimitEngine engine = engine();
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 1, 60)));
        decideNow(engine, engine.ledger("p"), limits);
        assertThat(decideNow(engine, engine.ledger("p"), limits).allowed()).isFalse();
        assertThat(decideNow(engine, engine.ledger("p"), limits).allowed()).isFalse();
        assertThat(store.acquires).hasValue(2);

        engine.apply(settings("ratelimit.limits.default.permit-limit", "2"));

        assertThat(decideNow(engine, engine.ledger("p"), limits).allowed()).isTrue();
    }

    @Test
    void anAnnouncementThatArrivesWhileTheRefusalIsOnItsWayIsNotLost() {
        RateLimitEngine engine = engine();
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 1, 60)));
        decideNow(engine, engine.ledger("p"), limits);
        store.hold = true;
        var refused = engine.decide(engine.ledger("p"), limits, 1); // out to the store
        store.listeners.forEach(l -> l.gained("default", null, "p")); // an announcement overtakes the answer
        store.hold = false;
        store.held.forEach(Runnable::run); // the answer: refused
        assertThat(refused.join().allowed()).isFalse();
        int before = store.acquires.get();

        decideNow(engine, engine.ledger("p"), limits);
        assertThat(store.acquires).as("a refusal that came back after an announcement is not remembered")
                .hasValue(before + 1);
    }

    @Test
    void nothingIsRememberedBeforeTheStoreAnnouncesNorWhenItCannot() {
        SharedFakeStore quiet = new SharedFakeStore(clock);
        RateLimitEngine notYet = RateLimitEngine.builder(settings(), quiet).clock(clock).build();
        BoundLimits limits = notYet.binder().bind(beanMethod("TodoResource.all()", limit("default", 1, 60)));
        for (int i = 0; i < 4; i++) {
            decideNow(notYet, notYet.ledger("p"), limits);
        }
        assertThat(quiet.acquires).as("before the subscription is confirmed").hasValue(4);

        SharedFakeStore deaf = new SharedFakeStore(clock);
        deaf.announces = false;
        RateLimitEngine never = RateLimitEngine.builder(settings(), deaf).clock(clock).build();
        deaf.subscribed();
        limits = never.binder().bind(beanMethod("TodoResource.all()", limit("default", 1, 60)));
        for (int i = 0; i < 4; i++) {
            decideNow(never, never.ledger("p"), limits);
        }
        assertThat(deaf.acquires).as("a store that announces nothing").hasValue(4);
    }

    @Test
    void aResubscriptionForgetsEverything() {
        RateLimitEngine engine = engine();
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 1, 60)));
        for (String partition : List.of("p", "q")) {
            decideNow(engine, engine.ledger(partition), limits);
            decideNow(engine, engine.ledger(partition), limits);
        }
        assertThat(store.acquires).hasValue(4);

        store.subscribed();

        decideNow(engine, engine.ledger("p"), limits);
        decideNow(engine, engine.ledger("q"), limits);
        assertThat(store.acquires).hasValue(6);
    }

    @Test
    void rememberedRefusalsStillAnswerDuringAnOutage() {
        RateLimitEngine engine = engine("ratelimit.store.on-failure", "allow");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 1, 60)));
        decideNow(engine, engine.ledger("p"), limits);
        decideNow(engine, engine.ledger("p"), limits);

        store.unreachable = true;
        Outcome other = decideNow(engine, engine.ledger("q"), limits).outcome(0);
        RateLimitDecision remembered = decideNow(engine, engine.ledger("p"), limits);

        assertThat(other.state()).as("the policy").isEqualTo(State.UNCOUNTED);
        assertThat(remembered.allowed()).as("still true").isFalse();
    }

    @Test
    void memoryHoldsAtMostMaxTrackedPartitionsRefusals() {
        RateLimitEngine engine = engine("ratelimit.max-tracked-partitions", "2");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 1, 60)));
        for (String partition : List.of("a", "b", "c")) {
            decideNow(engine, engine.ledger(partition), limits);
            decideNow(engine, engine.ledger(partition), limits);
        }
        assertThat(engine.binder().store().refusalsRemembered()).isEqualTo(2);
        int before = store.acquires.get();
        decideNow(engine, engine.ledger("a"), limits);
        decideNow(engine, engine.ledger("b"), limits);
        decideNow(engine, engine.ledger("c"), limits);
        assertThat(store.acquires).as("the third is not remembered").hasValue(before + 1);
    }

    @Test
    void zeroTurnsTheMemoryOff() {
        RateLimitEngine engine = engine("ratelimit.store.refusal-memory-millis", "0");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 1, 60)));
        for (int i = 0; i < 5; i++) {
            decideNow(engine, engine.ledger("p"), limits);
        }
        assertThat(store.acquires).hasValue(5);
        assertThat(engine.binder().summary()).contains("refusals remembered never");
    }

    @Test
    void aBucketsPartIsAnsweredOnlyUntilItsNextPermit() {
        RateLimitEngine engine = engine("ratelimit.store.refusal-memory-millis", "60000");
        // a bucket of 10 a minute (a permit every 6 s) beside a window of 1 that refuses for a minute
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", 
                limit(new RateLimitPolicy("bucket", 10, 60, RateLimitAlgorithm.TOKEN_BUCKET), 1),
                limit("default", 1, 60)));
        decideNow(engine, engine.ledger("p"), limits);
        decideNow(engine, engine.ledger("p"), limits);
        clock.advanceSeconds(5);
        RateLimitDecision remembered = decideNow(engine, engine.ledger("p"), limits);
        assertThat(store.acquires).hasValue(2);
        assertThat(remembered.outcome(0).remaining()).isEqualTo(9);
        clock.advanceSeconds(1); // the bucket is full again: its part of the answer changed
        RateLimitDecision asked = decideNow(engine, engine.ledger("p"), limits);
        assertThat(store.acquires).hasValue(3);
        assertThat(asked.outcome(0).remaining()).isEqualTo(10);
    }

    @Test
    void manyThreadsOnOneKeyAdmitExactlyTheLimitAndAskTheStoreOnceEachAfterTheRefusal() throws Exception {
        RateLimitEngine engine = engine();
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 100, 60)));
        int threads = 8;
        int each = 100;
        AtomicInteger admitted = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < each; i++) {
                        if (decideNow(engine, engine.ledger("hot"), limits).allowed()) {
                            admitted.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(admitted).hasValue(100);
        assertThat(store.acquires.get()).as("the refusals after the first each thread saw are answered here")
                .isBetween(101, 100 + threads);
    }

    private RateLimitEngine engine(String... config) {
        RateLimitEngine engine = RateLimitEngine.builder(settings(config), store).metrics(metrics).clock(clock).build();
        store.subscribed();
        return engine;
    }
}
