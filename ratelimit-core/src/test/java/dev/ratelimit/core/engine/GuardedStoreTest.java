package dev.ratelimit.core.engine;

import static dev.ratelimit.core.engine.RateLimitEngineTest.limit;
import static dev.ratelimit.core.engine.RateLimitEngineTest.settings;
import static dev.ratelimit.core.testing.EngineFixtures.beanMethod;
import static dev.ratelimit.core.testing.EngineFixtures.countsKept;
import static dev.ratelimit.core.testing.EngineFixtures.decideNow;
import static dev.ratelimit.core.testing.EngineFixtures.resourceMethod;
import static dev.ratelimit.core.testing.EngineFixtures.spendNow;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.RateLimitStoreException;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.binding.NamedLimit;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.core.testing.LogRecords;
import dev.ratelimit.core.testing.ManualClock;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The timeout and the failure policy around any store (docs/stores.md, "When the store fails"), through the engine:
 * {@code fail}, {@code allow} and {@code local}; one warning per outage and one line on recovery; store durations.
 */
class GuardedStoreTest {

    private final ManualClock clock = new ManualClock();
    private final RecordingMetrics metrics = new RecordingMetrics();
    private final SwitchableStore store = new SwitchableStore(clock);
    private final LogRecords log = LogRecords.on(LogRecords.LIBRARY).quiet();

    @AfterEach
    void stopCapturing() {
        log.close();
    }

    // ---------------------------------------------------------------- the timeout

    @Test
    void storeThatNeverAnswersFailsTheCallWithinTheTimeout() {
        RateLimitEngine engine = engine("fail");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));
        store.state = Behaviour.NEVER_ANSWER;

        CompletableFuture<RateLimitDecision> decided = engine.decide(engine.ledger("p"), limits, 1).toCompletableFuture();

        assertThatThrownBy(() -> decided.get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(RateLimitStoreException.class)
                .hasMessageContaining("\"default\"")
                .hasMessageContaining("50 ms")
                .cause().isInstanceOf(TimeoutException.class);
    }

    @Test
    void storeThatNeverAnswersIsLetThroughWithinTheTimeoutUnderAllow() throws Exception {
        RateLimitEngine engine = engine("allow");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));
        store.state = Behaviour.NEVER_ANSWER;

        RateLimitDecision decision = engine.decide(engine.ledger("p"), limits, 1).toCompletableFuture()
                .get(5, TimeUnit.SECONDS);

        assertThat(decision.allowed()).isTrue();
        assertThat(decision.outcome(0).state()).isEqualTo(State.UNCOUNTED);
    }

    @Test
    void waitingForAStoreThatNeverAnswersEndsWithAStoreFailure() {
        RateLimitEngine engine = engine("fail");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));
        store.state = Behaviour.NEVER_ANSWER;

        assertThatThrownBy(() -> decideNow(engine, engine.ledger("p"), limits))
                .isInstanceOf(RateLimitStoreException.class)
                .hasMessageContaining("\"default\"");
    }

    // ---------------------------------------------------------------- fail

    @Test
    void storeThatThrowsFailsTheCallCarryingTheCause() {
        RateLimitEngine engine = engine("fail");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));
        store.state = Behaviour.THROW;

        assertThatThrownBy(() -> decideNow(engine, engine.ledger("p"), limits))
                .isInstanceOf(RateLimitStoreException.class)
                .hasMessageContaining("\"default\"")
                .hasMessageContaining("connection reset")
                .hasCauseInstanceOf(IllegalStateException.class);
    }

    @Test
    void storeThatThrowsFailsTheStageInsteadOfThrowingFromDecide() {
        RateLimitEngine engine = engine("fail");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));
        store.state = Behaviour.THROW;

        CompletionStage<RateLimitDecision> stage = engine.decide(engine.ledger("p"), limits, 1);

        assertThat(stage.toCompletableFuture()).isCompletedExceptionally();
        assertThatThrownBy(() -> stage.toCompletableFuture().get(5, TimeUnit.SECONDS))
                .cause().isInstanceOf(RateLimitStoreException.class);
    }

    @Test
    void storeThatFailsItsStageFailsTheCallCarryingTheCause() {
        RateLimitEngine engine = engine("fail");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));
        store.state = Behaviour.FAIL_STAGE;

        assertThatThrownBy(() -> decideNow(engine, engine.ledger("p"), limits))
                .isInstanceOf(RateLimitStoreException.class)
                .hasMessageContaining("connection refused")
                .hasCauseInstanceOf(IOException.class);
        assertThat(metrics.nonZero()).containsOnly(entry("default/failed/none", 1L));
    }

    @Test
    void programmaticApiFailsLikeAnyCallWhenTheStoreFails() {
        RateLimitEngine engine = engine("fail", "ratelimit.limits.items.permit-limit", "50",
                "ratelimit.limits.items.window-seconds", "60");
        NamedLimit items = engine.binder().named("items");
        store.state = Behaviour.FAIL_STAGE;

        assertThatThrownBy(() -> spendNow(engine, engine.ledger("p"), items, 5, false))
                .isInstanceOf(RateLimitStoreException.class);
        assertThatThrownBy(() -> spendNow(engine, engine.ledger("p"), items, 5, true))
                .isInstanceOf(RateLimitStoreException.class);
    }

    // ---------------------------------------------------------------- allow

    @ParameterizedTest
    @EnumSource(value = Behaviour.class, names = {"THROW", "FAIL_STAGE", "NEVER_ANSWER"})
    void allowLetsTheCallThroughUncountedAndCountsItFailedOnly(Behaviour failure) throws Exception {
        RateLimitEngine engine = engine("allow");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("module", 100, 60), limit("default", 3, 60)));
        store.state = failure;

        RateLimitDecision decision = engine.decide(engine.ledger("p"), limits, 1).toCompletableFuture()
                .get(5, TimeUnit.SECONDS);

        assertThat(decision.allowed()).isTrue();
        assertThat(decision.outcomes()).extracting(Outcome::state).containsOnly(State.UNCOUNTED);
        assertThat(decision.outcomes()).extracting(Outcome::remaining).containsExactly(100, 3);
        assertThat(metrics.nonZero()).containsOnly(
                entry("module/failed/none", 1L),
                entry("default/failed/none", 1L));
    }

    @Test
    void allowNeverRefusesWhateverTheNumberOfCalls() {
        RateLimitEngine engine = engine("allow");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 1, 60)));
        store.state = Behaviour.FAIL_STAGE;

        for (int i = 0; i < 5; i++) {
            assertThat(decideNow(engine, engine.ledger("p"), limits).allowed()).isTrue();
        }
        assertThat(metrics.nonZero()).containsOnly(entry("default/failed/none", 5L));
    }

    @Test
    void decisionTheStoreDidNotMakeIsNeverHandedToItToGiveBack() {
        RateLimitEngine engine = engine("allow");
        BoundLimits resource = engine.binder().bindResourceMethod(resourceMethod("TodoResource.export()", limit("module", 100, 60))).transport();
        BoundLimits bean = engine.binder().bind(beanMethod("ExportService.export()", limit("export", 1, 10)));
        decideNow(engine, engine.ledger("p"), bean);
        RequestLedger ledger = engine.ledger("p");

        store.state = Behaviour.FAIL_STAGE;
        decideNow(engine, ledger, resource);
        store.state = Behaviour.ANSWER;
        RateLimitDecision refused = decideNow(engine, ledger, bean);
        engine.giveBack(ledger);

        assertThat(refused.allowed()).isFalse();
        assertThat(store.released).isEmpty();
    }

    @Test
    void permitsTheStoreSpentAreGivenBackToIt() {
        RateLimitEngine engine = engine("fail");
        BoundLimits resource = engine.binder().bindResourceMethod(resourceMethod("TodoResource.export()", limit("module", 100, 60))).transport();
        BoundLimits bean = engine.binder().bind(beanMethod("ExportService.export()", limit("export", 1, 10)));
        decideNow(engine, engine.ledger("p"), bean);
        RequestLedger ledger = engine.ledger("p");

        RateLimitDecision spent = decideNow(engine, ledger, resource);
        decideNow(engine, ledger, bean);
        engine.giveBack(ledger);

        assertThat(store.released).containsExactly(spent);
        assertThat(decideNow(engine, engine.ledger("p"), resource).outcome(0).remaining()).isEqualTo(99);
    }

    // ---------------------------------------------------------------- local

    @Test
    void localCountsInProcessWhileTheStoreIsDown() {
        RateLimitEngine engine = engine("local");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 2, 60)));
        store.state = Behaviour.FAIL_STAGE;

        RateLimitDecision first = decideNow(engine, engine.ledger("p"), limits);
        RateLimitDecision second = decideNow(engine, engine.ledger("p"), limits);
        RateLimitDecision third = decideNow(engine, engine.ledger("p"), limits);
        RateLimitDecision otherPartition = decideNow(engine, engine.ledger("q"), limits);

        assertThat(first.outcome(0).state()).isEqualTo(State.SPENT);
        assertThat(first.outcome(0).remaining()).isEqualTo(1);
        assertThat(second.outcome(0).remaining()).isZero();
        assertThat(third.allowed()).isFalse();
        assertThat(otherPartition.allowed()).isTrue();
        assertThat(countsKept(store.counts)).isZero();
    }

    @Test
    void localCountsAreNotCarriedOverWhenTheStoreAnswersAgain() {
        RateLimitEngine engine = engine("local");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 2, 60)));
        store.state = Behaviour.FAIL_STAGE;
        decideNow(engine, engine.ledger("p"), limits);
        decideNow(engine, engine.ledger("p"), limits);

        store.state = Behaviour.ANSWER;
        RateLimitDecision decided = decideNow(engine, engine.ledger("p"), limits);

        assertThat(decided.allowed()).isTrue();
        assertThat(decided.outcome(0).remaining()).isEqualTo(1);
    }

    @Test
    void localDecisionsAreGivenBackToTheLocalStore() {
        RateLimitEngine engine = engine("local");
        BoundLimits resource = engine.binder().bindResourceMethod(resourceMethod("TodoResource.export()", limit("module", 100, 60))).transport();
        BoundLimits bean = engine.binder().bind(beanMethod("ExportService.export()", limit("export", 1, 10)));
        store.state = Behaviour.FAIL_STAGE;
        RequestLedger first = engine.ledger("p");
        decideNow(engine, first, resource);
        decideNow(engine, first, bean);
        RequestLedger refused = engine.ledger("p");

        assertThat(decideNow(engine, refused, resource).outcome(0).remaining()).isEqualTo(98);
        assertThat(decideNow(engine, refused, bean).allowed()).isFalse();
        engine.giveBack(refused);

        assertThat(decideNow(engine, engine.ledger("p"), resource).outcome(0).remaining()).isEqualTo(98);
        assertThat(store.released).isEmpty();
    }

    @Test
    void localDecisionCountsEachLimitOnceInRequestMetrics() {
        RateLimitEngine engine = engine("local");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 2, 60)));
        store.state = Behaviour.FAIL_STAGE;

        for (int i = 0; i < 3; i++) {
            decideNow(engine, engine.ledger("p"), limits);
        }

        assertThat(metrics.nonZero().values().stream().mapToLong(Long::longValue).sum())
                .as("one ratelimit.requests count per limit decided, counted: %s", metrics.nonZero())
                .isEqualTo(3);
    }

    // ---------------------------------------------------------------- the outage log

    @Test
    void outageIsLoggedOnceAndItsEndOnceWhateverTheNumberOfFailures() {
        RateLimitEngine engine = engine("allow");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 100, 60)));

        store.state = Behaviour.FAIL_STAGE;
        for (int i = 0; i < 4; i++) {
            decideNow(engine, engine.ledger("p"), limits);
        }
        store.state = Behaviour.THROW;
        decideNow(engine, engine.ledger("p"), limits);
        List<String> duringOutage = log.messages(Level.WARNING);
        store.state = Behaviour.ANSWER;
        for (int i = 0; i < 3; i++) {
            decideNow(engine, engine.ledger("p"), limits);
        }

        assertThat(duringOutage).singleElement().asString()
                .contains("fake store")
                .contains("failed to decide")
                .contains("\"default\"")
                .contains("ratelimit.store.on-failure=allow");
        assertThat(log.messages(Level.WARNING)).hasSize(1);
        assertThat(log.messages(Level.INFO)).singleElement().asString()
                .contains("answers again")
                .contains("5 calls");
    }

    @Test
    void nextOutageIsLoggedAgain() {
        RateLimitEngine engine = engine("allow");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 100, 60)));

        for (int outage = 0; outage < 2; outage++) {
            store.state = Behaviour.FAIL_STAGE;
            decideNow(engine, engine.ledger("p"), limits);
            decideNow(engine, engine.ledger("p"), limits);
            store.state = Behaviour.ANSWER;
            decideNow(engine, engine.ledger("p"), limits);
            decideNow(engine, engine.ledger("p"), limits);
        }

        assertThat(log.messages(Level.WARNING)).hasSize(2);
        assertThat(log.messages(Level.INFO, "answers again")).hasSize(2);
    }

    @Test
    void storeThatAlwaysAnswersLogsNothing() {
        RateLimitEngine engine = engine("fail");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 100, 60)));

        for (int i = 0; i < 5; i++) {
            decideNow(engine, engine.ledger("p"), limits);
        }

        assertThat(log.records()).isEmpty();
    }

    @Test
    void giveBackThatFailsIsLoggedNotThrown() {
        RateLimitEngine engine = engine("fail");
        BoundLimits resource = engine.binder().bindResourceMethod(resourceMethod("TodoResource.export()", limit("module", 100, 60))).transport();
        BoundLimits bean = engine.binder().bind(beanMethod("ExportService.export()", limit("export", 1, 10)));
        decideNow(engine, engine.ledger("p"), bean);
        RequestLedger ledger = engine.ledger("p");
        decideNow(engine, ledger, resource);
        decideNow(engine, ledger, bean);
        store.releaseFails = true;

        assertThatCode(() -> engine.giveBack(ledger)).doesNotThrowAnyException();
        assertThat(log.messages(Level.WARNING)).singleElement().asString().contains("give-back");
    }

    // ---------------------------------------------------------------- store durations

    @Test
    void storeDurationIsRecordedByOutcome() throws Exception {
        RateLimitEngine engine = engine("allow");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 100, 60)));

        decideNow(engine, engine.ledger("p"), limits);
        decideNow(engine, engine.ledger("p"), limits);
        store.state = Behaviour.FAIL_STAGE;
        decideNow(engine, engine.ledger("p"), limits);
        store.state = Behaviour.THROW;
        decideNow(engine, engine.ledger("p"), limits);
        store.state = Behaviour.NEVER_ANSWER;
        engine.decide(engine.ledger("p"), limits, 1).toCompletableFuture().get(5, TimeUnit.SECONDS);

        assertThat(metrics.durations("fake", "decided")).isEqualTo(2);
        assertThat(metrics.durations("fake", "failed")).isEqualTo(2);
        assertThat(metrics.durations("fake", "timeout")).isEqualTo(1);
    }

    @Test
    void inProcessStoreDurationIsRecordedAsDecided() {
        InProcessRateLimitStore inProcess = new InProcessRateLimitStore(10, clock);
        RateLimitEngine engine = RateLimitEngine.builder(settings(), inProcess).metrics(metrics).build();
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 1, 60)));

        decideNow(engine, engine.ledger("p"), limits);
        decideNow(engine, engine.ledger("p"), limits);

        assertThat(metrics.durations("in-process", "decided")).isEqualTo(2);
        assertThat(metrics.durations("in-process", "failed")).isZero();
    }

    @Test
    void permitsOfAnAnswerThatArrivesAfterTheTimeoutAreGivenBack() throws Exception {
        RateLimitEngine engine = engine("allow");
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 3, 60)));
        store.state = Behaviour.LATE;

        RateLimitDecision decided = engine.decide(engine.ledger("p"), limits, 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(decided.outcome(0).state()).as("the policy decided: uncounted").isEqualTo(State.UNCOUNTED);
        store.late.forEach(Runnable::run); // the store answers now, having spent a permit

        store.state = Behaviour.ANSWER;
        RateLimitDecision next = engine.decide(engine.ledger("p"), limits, 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(next.outcome(0).remaining()).as("the late permit was given back: 3 - 1 left").isEqualTo(2);
        assertThat(store.released).hasSize(1);
    }

    // ---------------------------------------------------------------- helpers

    private RateLimitEngine engine(String onFailure, String... more) {
        // retry 0: every call tries the store (what happens between failures is OutageBreakerTest's)
        String[] config = new String[more.length + 6];
        config[0] = "ratelimit.store.timeout-millis";
        config[1] = "50";
        config[2] = "ratelimit.store.on-failure";
        config[3] = onFailure;
        config[4] = "ratelimit.store.retry-millis";
        config[5] = "0";
        System.arraycopy(more, 0, config, 6, more.length);
        RateLimitEngine engine = RateLimitEngine.builder(settings(config), store).metrics(metrics).clock(clock).build();
        assertThat(store.answersAtOnce()).isFalse();
        return engine;
    }

    enum Behaviour { ANSWER, THROW, FAIL_STAGE, NEVER_ANSWER, LATE }

    /** A remote-like store in front of in-process counts, that a test switches between answering and failing. */
    static final class SwitchableStore implements RateLimitStore {
        final InProcessRateLimitStore counts;
        final List<RateLimitDecision> released = new CopyOnWriteArrayList<>();
        volatile Behaviour state = Behaviour.ANSWER;
        volatile boolean releaseFails;
        /** Answers of {@link Behaviour#LATE}, run when the test says (after the timeout). */
        final List<Runnable> late = new CopyOnWriteArrayList<>();
        /** Calls of acquire. */
        final java.util.concurrent.atomic.AtomicInteger acquires = new java.util.concurrent.atomic.AtomicInteger();

        SwitchableStore(ManualClock clock) {
            this.counts = new InProcessRateLimitStore(10_000, clock);
        }

        @Override
        public Object bind(CountKey key) {
            return counts.bind(key);
        }

        @Override
        public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
            acquires.incrementAndGet();
            return switch (state) {
                case ANSWER -> counts.acquire(partition, request, multiple);
                case THROW -> throw new IllegalStateException("connection reset");
                case FAIL_STAGE -> CompletableFuture.failedFuture(new IOException("connection refused"));
                case NEVER_ANSWER -> new CompletableFuture<>();
                case LATE -> {
                    CompletableFuture<RateLimitDecision> late = new CompletableFuture<>();
                    this.late.add(() -> late.complete(counts.decide(partition, request, multiple)));
                    yield late;
                }
            };
        }

        @Override
        public CompletionStage<Void> release(RateLimitDecision decision) {
            if (releaseFails) {
                return CompletableFuture.failedFuture(new IOException("connection refused"));
            }
            released.add(decision);
            return counts.release(decision);
        }

        @Override
        public String storeName() {
            return "fake";
        }

        @Override
        public String toString() {
            return "fake store";
        }
    }
}
