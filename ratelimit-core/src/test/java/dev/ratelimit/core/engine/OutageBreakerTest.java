package dev.ratelimit.core.engine;

import static dev.ratelimit.core.engine.RateLimitEngineTest.limit;
import static dev.ratelimit.core.engine.RateLimitEngineTest.settings;
import static dev.ratelimit.core.testing.EngineFixtures.beanMethod;
import static dev.ratelimit.core.testing.EngineFixtures.decideNow;
import static dev.ratelimit.core.testing.EngineFixtures.resourceMethod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitStoreException;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.engine.GuardedStoreTest.Behaviour;
import dev.ratelimit.core.engine.GuardedStoreTest.SwitchableStore;
import dev.ratelimit.core.testing.LogRecords;
import dev.ratelimit.core.testing.ManualClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An outage costs one timeout: once the store could not be reached, calls get the failure policy at once,
 * without calling it, for {@code ratelimit.store.retry-millis}; then one call probes it; the first answer ends the
 * outage; logged once each way. On a manual clock: nothing sleeps but the one test of a real timeout.
 */
class OutageBreakerTest {

    private final ManualClock clock = new ManualClock();
    private final SwitchableStore store = new SwitchableStore(clock);
    private final RecordingMetrics metrics = new RecordingMetrics();
    private final LogRecords log = LogRecords.on(LogRecords.LIBRARY).quiet();

    @AfterEach
    void stopCapturing() {
        log.close();
    }

    @Test
    void afterAnUnreachableStoreCallsGoWithoutItUntilTheRetryThenOneProbes() {
        RateLimitEngine engine = engine("allow");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 100, 60)));
        store.state = Behaviour.FAIL_STAGE; // an I/O failure

        for (int i = 0; i < 10; i++) {
            assertThat(decideNow(engine, engine.ledger("p"), limits).outcome(0).state()).isEqualTo(State.UNCOUNTED);
            clock.advanceMillis(99);
        }
        assertThat(store.acquires).as("the first call only").hasValue(1);

        clock.advanceMillis(10); // 1000 ms after the failure
        store.state = Behaviour.ANSWER;
        assertThat(decideNow(engine, engine.ledger("p"), limits).outcome(0).state()).as("the probe").isEqualTo(State.SPENT);
        for (int i = 0; i < 3; i++) {
            assertThat(decideNow(engine, engine.ledger("p"), limits).outcome(0).state()).isEqualTo(State.SPENT);
        }
        assertThat(store.acquires).hasValue(5);
        assertThat(metrics.count("default", "failed")).isEqualTo(10);
        assertThat(log.messages(Level.WARNING)).singleElement().asString().contains("failed to decide");
        assertThat(log.messages(Level.INFO, "answers again")).singleElement().asString().contains("10 calls");
    }

    @Test
    void aProbeThatFailsStartsTheWaitAgain() {
        RateLimitEngine engine = engine("allow");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 100, 60)));
        store.state = Behaviour.FAIL_STAGE;
        decideNow(engine, engine.ledger("p"), limits);

        clock.advanceMillis(1000);
        decideNow(engine, engine.ledger("p"), limits); // the probe fails
        clock.advanceMillis(999);
        decideNow(engine, engine.ledger("p"), limits);
        assertThat(store.acquires).hasValue(2);
        clock.advanceMillis(1);
        decideNow(engine, engine.ledger("p"), limits);
        assertThat(store.acquires).hasValue(3);
        assertThat(log.messages(Level.WARNING)).hasSize(1);
    }

    @Test
    void onlyOneOfManyConcurrentCallsProbes() throws Exception {
        RateLimitEngine engine = engine("allow");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 100, 60)));
        store.state = Behaviour.FAIL_STAGE;
        decideNow(engine, engine.ledger("p"), limits);
        clock.advanceMillis(1000);
        store.state = Behaviour.NEVER_ANSWER; // the probe hangs: the others must not wait for it

        int threads = 8;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<CompletableFuture<RateLimitDecision>> answers = new ArrayList<>();
        try {
            List<java.util.concurrent.Future<CompletableFuture<RateLimitDecision>>> sent = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                sent.add(pool.submit(() -> {
                    start.await();
                    return engine.decide(engine.ledger("p"), limits, 1);
                }));
            }
            start.countDown();
            for (var f : sent) {
                answers.add(f.get(10, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(store.acquires).as("the failure, then one probe").hasValue(2);
        assertThat(answers.stream().filter(CompletableFuture::isDone)).as("answered at once").hasSize(threads - 1);
    }

    @Test
    void anErrorTheStoreAnsweredCostsThatCallAlone() {
        RateLimitEngine engine = engine("allow");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 100, 60)));
        store.state = Behaviour.THROW; // not an I/O failure: the store is there

        decideNow(engine, engine.ledger("p"), limits);
        decideNow(engine, engine.ledger("p"), limits);

        assertThat(store.acquires).hasValue(2);
    }

    @Test
    void underFailCallsFailAtOnceNamingTheOutage() {
        RateLimitEngine engine = engine("fail");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 100, 60)));
        store.state = Behaviour.FAIL_STAGE;
        assertThatThrownBy(() -> decideNow(engine, engine.ledger("p"), limits)).isInstanceOf(RateLimitStoreException.class);

        assertThatThrownBy(() -> decideNow(engine, engine.ledger("p"), limits))
                .isInstanceOf(RateLimitStoreException.class)
                .hasMessageContaining("\"default\"")
                .hasMessageContaining("unreachable")
                .hasMessageContaining("connection refused");
        assertThat(store.acquires).hasValue(1);
    }

    @Test
    void aTimeoutCostsTheFirstCallOnlyAndTheOthersAreAnsweredAtOnce() throws Exception {
        RateLimitEngine engine = engine("allow");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 100, 60)));
        store.state = Behaviour.NEVER_ANSWER;

        RateLimitDecision first = engine.decide(engine.ledger("p"), limits, 1).get(5, TimeUnit.SECONDS);
        List<CompletableFuture<RateLimitDecision>> next = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            next.add(engine.decide(engine.ledger("p"), limits, 1));
        }

        assertThat(first.outcome(0).state()).isEqualTo(State.UNCOUNTED);
        assertThat(next).as("answered by the policy without waiting").allMatch(CompletableFuture::isDone);
        assertThat(store.acquires).hasValue(1);
        assertThat(metrics.durations("fake", "timeout")).isEqualTo(1);
    }

    @Test
    void zeroRetryTriesTheStoreEveryTime() {
        RateLimitEngine engine = engine("allow", "ratelimit.store.retry-millis", "0");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 100, 60)));
        store.state = Behaviour.FAIL_STAGE;
        for (int i = 0; i < 4; i++) {
            decideNow(engine, engine.ledger("p"), limits);
        }
        assertThat(store.acquires).hasValue(4);
    }

    @Test
    void aGiveBackStillGoesToTheStoreDuringAnOutageAsNoRequestWaitsForIt() {
        RateLimitEngine engine = engine("fail");
        BoundLimits resource = engine.binder().bindResourceMethod(resourceMethod("TodoResource.export()",
                limit("module", 100, 60))).transport();
        RequestLedger ledger = engine.ledger("p");
        decideNow(engine, ledger, resource);
        store.state = Behaviour.NEVER_ANSWER;
        assertThatThrownBy(() -> decideNow(engine, engine.ledger("q"), resource)).isInstanceOf(RateLimitStoreException.class);

        engine.giveBack(ledger); // a store that is only slow still gets the permits back

        assertThat(store.released).hasSize(1);
    }

    private RateLimitEngine engine(String onFailure, String... more) {
        String[] config = new String[more.length + 4];
        config[0] = "ratelimit.store.timeout-millis";
        config[1] = "50";
        config[2] = "ratelimit.store.on-failure";
        config[3] = onFailure;
        System.arraycopy(more, 0, config, 4, more.length);
        return RateLimitEngine.builder(settings(config), store).metrics(metrics).clock(clock).build();
    }
}
