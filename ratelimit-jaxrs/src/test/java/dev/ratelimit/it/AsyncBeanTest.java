package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.RateLimit;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitExceededException;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A limited method that returns a {@code CompletionStage} or a Mutiny {@code Uni} gets the decision
 * chained, never awaited: with a store that answers later, the call returns at once, the method runs once the
 * answer is there, and a refusal completes the method's result exceptionally.
 */
class AsyncBeanTest {

    /** Decides in process, but answers only when the test says so, as a remote store does. */
    @Alternative
    @Priority(1)
    @ApplicationScoped
    public static class LateStore implements RateLimitStore {
        static final ConcurrentLinkedQueue<Runnable> PENDING = new ConcurrentLinkedQueue<>();
        private final InProcessRateLimitStore inProcess = new InProcessRateLimitStore();

        @Override
        public Object bind(dev.ratelimit.core.CountKey key) {
            return inProcess.bind(key);
        }

        @Override
        public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
            CompletableFuture<RateLimitDecision> answer = new CompletableFuture<>();
            PENDING.add(() -> answer.complete(inProcess.decide(partition, request, multiple)));
            return answer;
        }

        @Override
        public CompletionStage<Void> release(RateLimitDecision decision) {
            return inProcess.release(decision);
        }

        static void answerAll() {
            Runnable answer;
            while ((answer = PENDING.poll()) != null) {
                answer.run();
            }
        }
    }

    @ApplicationScoped
    public static class Reports {
        static final AtomicInteger RUNS = new AtomicInteger();

        @RateLimit(permitLimit = 1, windowSeconds = 60, name = "async-report")
        public CompletionStage<String> report() {
            RUNS.incrementAndGet();
            return CompletableFuture.completedFuture("report");
        }

        @RateLimit(permitLimit = 1, windowSeconds = 60, name = "uni-report")
        public Uni<String> uniReport() {
            RUNS.incrementAndGet();
            return Uni.createFrom().item("uni");
        }
    }

    @Test
    void aCompletionStageMethodReturnsAtOnceAndRunsOnceTheStoreAnswers() throws Exception {
        Reports.RUNS.set(0);
        LateStore.PENDING.clear();
        try (Embedded app = Embedded.builder().beans(LateStore.class, Reports.class)
                .config("ratelimit.store.timeout-millis", "10000").startCdi()) {
            Reports reports = app.bean(Reports.class);

            CompletableFuture<String> first = reports.report().toCompletableFuture();

            assertThat(first).as("the call did not wait for the store").isNotDone();
            assertThat(Reports.RUNS).as("the method waits for the decision").hasValue(0);
            LateStore.answerAll();
            assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo("report");
            assertThat(Reports.RUNS).hasValue(1);

            CompletableFuture<String> refused = reports.report().toCompletableFuture();
            assertThat(refused).isNotDone();
            LateStore.answerAll();
            assertThatThrownBy(() -> refused.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(RateLimitExceededException.class);
            assertThat(Reports.RUNS).as("a refused call does not run").hasValue(1);
        }
    }

    @Test
    void aUniMethodDecidesWhenSubscribedAndFailsTheUniWhenRefused() throws Exception {
        Reports.RUNS.set(0);
        LateStore.PENDING.clear();
        try (Embedded app = Embedded.builder().beans(LateStore.class, Reports.class)
                .config("ratelimit.store.timeout-millis", "10000").startCdi()) {
            Reports reports = app.bean(Reports.class);

            Uni<String> first = reports.uniReport();
            assertThat(LateStore.PENDING).as("lazy: nothing decided before a subscription").isEmpty();
            CompletableFuture<String> result = first.subscribeAsCompletionStage();
            assertThat(result).isNotDone();
            LateStore.answerAll();
            assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("uni");

            CompletableFuture<String> refused = reports.uniReport().subscribeAsCompletionStage();
            LateStore.answerAll();
            assertThatThrownBy(() -> refused.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(RateLimitExceededException.class);
            assertThat(Reports.RUNS).hasValue(1);
        }
    }

    @Test
    void withTheInProcessStoreTheDecisionIsMadeAtOnce() {
        Reports.RUNS.set(0);
        try (Embedded app = Embedded.builder().beans(Reports.class).startCdi()) {
            Reports reports = app.bean(Reports.class);

            assertThat(reports.report().toCompletableFuture()).isCompletedWithValue("report");
            CompletableFuture<String> refused = reports.report().toCompletableFuture();
            assertThat(refused).isCompletedExceptionally();
            assertThatThrownBy(refused::join).isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(RateLimitExceededException.class);
        }
    }
}
