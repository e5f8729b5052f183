package dev.ratelimit.core.lifecycle;

import static dev.ratelimit.core.testing.EngineFixtures.limit;
import static dev.ratelimit.core.testing.EngineFixtures.resourceMethod;
import static dev.ratelimit.core.testing.EngineFixtures.settings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitExceededException;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitScope;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.RateLimitStoreException;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.core.engine.TestCaller;
import dev.ratelimit.core.headers.RateLimitHeaders;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.core.testing.EngineFixtures;
import dev.ratelimit.core.testing.ManualClock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * One limited request through its filters, as every adapter runs it: a scope decided, the refusal answered by the
 * last request filter, the give-back and the headers once the response's status is known.
 */
class RequestLifecycleTest {

    private final ManualClock clock = new ManualClock();
    private final InProcessRateLimitStore counts = new InProcessRateLimitStore(100, clock);
    private final Suspensions suspensions = new Suspensions(true);

    @Test
    void anAllowedRequestGetsItsHeadersWhateverItsStatus() {
        RateLimitEngine engine = engine(counts);
        BoundLimits items = transport(engine, "items", 3);

        Map<String, String> first = request(engine, items, null, 200);
        Map<String, String> failed = request(engine, items, null, 500);

        assertThat(first).containsEntry("RateLimit", "\"items\";r=2;t=60").doesNotContainKey("Retry-After");
        assertThat(failed).as("a request the limiter let through spends, whatever its answer")
                .containsEntry("RateLimit", "\"items\";r=1;t=60");
        assertThat(suspensions.calls).as("a store that answers at once suspends nothing").isEmpty();
    }

    @Test
    void aRefusalIsAnsweredByTheLastRequestFilterAndItsResponseGetsTheRefusingLimitsHeaders() {
        RateLimitEngine engine = engine(counts);
        BoundLimits items = transport(engine, "items", 1);
        request(engine, items, null, 200);
        RequestLedger ledger = engine.ledger(TestCaller.withHeader("X-Api-Key", "alice"), null);

        RequestLifecycle.decideScope(engine, ledger, items, "request", suspensions); // recorded, not thrown

        assertThat(ledger.refusal()).isNotNull();
        assertThatThrownBy(() -> RequestLifecycle.answerRefusal(ledger))
                .isInstanceOfSatisfying(RateLimitExceededException.class,
                        e -> assertThat(e.getViolatedPolicies()).containsExactly("items"));
        Map<String, String> headers = new LinkedHashMap<>();
        assertThat(RequestLifecycle.respond(engine, ledger, RequestLifecycle.TOO_MANY_REQUESTS, null, headers::put)).isTrue();
        assertThat(headers).contains(entry("RateLimit-Remaining", "0"), entry("Retry-After", "60"),
                entry("RateLimit", "\"items\";r=0;t=60"));
    }

    @Test
    void aRefusedRequestGivesBackWhatAnotherScopeSpent() {
        RateLimitEngine engine = engine(counts);
        BoundLimits items = transport(engine, "items", 5);
        BoundLimits delete = principal(engine, "delete", 1);
        request(engine, delete, null, 200);

        Map<String, String> refused = request(engine, items, delete, RequestLifecycle.TOO_MANY_REQUESTS);
        Map<String, String> next = request(engine, items, null, 200);

        assertThat(refused).containsEntry("RateLimit", "\"items\";r=5;t=60, \"delete\";r=0;t=60");
        assertThat(next).as("the refused request spent nothing from the TRANSPORT limit")
                .containsEntry("RateLimit", "\"items\";r=4;t=60");
    }

    @Test
    void anotherFiltersAnswerAfterARefusalGetsNoHeadersAndSpendsNothing() {
        RateLimitEngine engine = engine(counts);
        BoundLimits items = transport(engine, "items", 5);
        BoundLimits delete = principal(engine, "delete", 1);
        request(engine, delete, null, 200);

        Map<String, String> unauthorized = request(engine, items, delete, 401);
        Map<String, String> next = request(engine, items, null, 200);

        assertThat(unauthorized).isEmpty();
        assertThat(next).containsEntry("RateLimit", "\"items\";r=4;t=60");
    }

    @Test
    void aRequestNoLimitReachedIsLeftAlone() {
        RateLimitEngine engine = engine(counts);
        RequestLedger untouched = engine.ledger(TestCaller.anonymous(), null);
        Map<String, String> headers = new LinkedHashMap<>();

        RequestLifecycle.decideScope(engine, untouched, null, "request", suspensions);
        RequestLifecycle.answerRefusal(null);
        RequestLifecycle.answerRefusal(untouched);

        assertThat(RequestLifecycle.respond(engine, null, 200, null, headers::put)).isFalse();
        assertThat(RequestLifecycle.respond(engine, untouched, 200, null, headers::put)).isFalse();
        assertThat(headers).isEmpty();
    }

    @Test
    void aPendingAnswerSuspendsTheRequestUntilTheStoreAnswers() {
        Later later = new Later(counts);
        RateLimitEngine engine = engine(later);
        BoundLimits items = transport(engine, "items", 3);
        RequestLedger ledger = engine.ledger(TestCaller.withHeader("X-Api-Key", "alice"), null);

        RequestLifecycle.decideScope(engine, ledger, items, "request", suspensions);
        assertThat(suspensions.calls).containsExactly("suspend request");
        later.answer();

        assertThat(suspensions.calls).containsExactly("suspend request", "resume request");
        Map<String, String> headers = new LinkedHashMap<>();
        RequestLifecycle.respond(engine, ledger, 200, null, headers::put);
        assertThat(headers).containsEntry("RateLimit", "\"items\";r=2;t=60");
    }

    @Test
    void aStoreFailureResumesTheSuspendedRequestWithIt() {
        Later later = new Later(counts);
        RateLimitEngine engine = engine(later);
        BoundLimits items = transport(engine, "items", 3);
        RequestLedger ledger = engine.ledger(TestCaller.anonymous(), null);

        RequestLifecycle.decideScope(engine, ledger, items, "request", suspensions);
        later.fail(new IllegalStateException("down"));

        assertThat(suspensions.calls).containsExactly("suspend request", "resume request with RateLimitStoreException");
    }

    @Test
    void aStoreFailureKnownAtOnceIsThrownToItsMapper() {
        RateLimitEngine engine = engine(EngineFixtures.failing());
        BoundLimits items = transport(engine, "items", 3);
        RequestLedger ledger = engine.ledger(TestCaller.anonymous(), null);

        assertThatThrownBy(() -> RequestLifecycle.decideScope(engine, ledger, items, "request", suspensions))
                .isInstanceOf(RateLimitStoreException.class);
        assertThat(suspensions.calls).isEmpty();
    }

    @Test
    void whereTheRuntimeCannotSuspendTheFiltersThreadWaitsForThePendingAnswer() throws Exception {
        Later later = new Later(counts);
        RateLimitEngine engine = engine(later);
        BoundLimits items = transport(engine, "items", 3);
        RequestLedger ledger = engine.ledger(TestCaller.withHeader("X-Api-Key", "alice"), null);
        Suspensions none = new Suspensions(false);
        ExecutorService filterThread = Executors.newSingleThreadExecutor();
        try {
            Future<?> filter = filterThread.submit(() -> RequestLifecycle.decideScope(engine, ledger, items, "request", none));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (none.calls.isEmpty() && System.nanoTime() - deadline < 0) {
                Thread.onSpinWait(); // until the filter found it cannot suspend the request: then it waits
            }
            assertThat(filter.isDone()).as("the filter waits for the store").isFalse();
            later.answer();
            filter.get(30, TimeUnit.SECONDS);
        } finally {
            filterThread.shutdownNow();
        }

        assertThat(none.calls).containsExactly("suspend request");
        assertThat(ledger.refusal()).isNull();
        assertThat(ledger.headline().remaining()).isEqualTo(2);
    }

    // ---------------------------------------------------------------- what an adapter does

    /** One request of the caller alice through the filters: the scopes decided, the refusal answered, the response. */
    private Map<String, String> request(RateLimitEngine engine, BoundLimits transport, BoundLimits principal, int status) {
        RequestLedger ledger = engine.ledger(TestCaller.withHeader("X-Api-Key", "alice"), null);
        RequestLifecycle.decideScope(engine, ledger, transport, "request", suspensions);
        RequestLifecycle.decideScope(engine, ledger, principal, "request", suspensions);
        try {
            RequestLifecycle.answerRefusal(ledger);
        } catch (RateLimitExceededException e) {
            assertThat(status).as("a refused request is answered by a refusal").isGreaterThanOrEqualTo(400);
        }
        Map<String, String> headers = new LinkedHashMap<>();
        RequestLifecycle.respond(engine, ledger, status, new RateLimitHeaders.Formats(), headers::put);
        return headers;
    }

    private RateLimitEngine engine(RateLimitStore store) {
        // a pending answer times out only after a minute: the tests answer it themselves
        return RateLimitEngine.builder(settings("ratelimit.partition-header", "X-Api-Key",
                "ratelimit.store.timeout-millis", "60000"), store).clock(clock).build();
    }

    private static BoundLimits transport(RateLimitEngine engine, String name, int permitLimit) {
        return engine.binder().bindResourceMethod(resourceMethod("Resource.get()", limit(name, permitLimit, 60)))
                .transport();
    }

    private static BoundLimits principal(RateLimitEngine engine, String name, int permitLimit) {
        LimitDeclaration declared = LimitDeclaration.builder(DeclaredOn.METHOD, "the test")
                .policy(new RateLimitPolicy(name, permitLimit, 60)).scope(RateLimitScope.PRINCIPAL).build();
        return engine.binder().bindResourceMethod(resourceMethod("Resource.get()", declared)).principal();
    }

    /** A runtime's suspension that writes down what it was asked (by any thread). */
    private static final class Suspensions implements Suspension<String> {
        final List<String> calls = new CopyOnWriteArrayList<>();
        private final boolean suspends;

        Suspensions(boolean suspends) {
            this.suspends = suspends;
        }

        @Override
        public boolean suspend(String request) {
            calls.add("suspend " + request);
            return suspends;
        }

        @Override
        public void resume(String request, Throwable failure) {
            calls.add("resume " + request + (failure == null ? "" : " with " + failure.getClass().getSimpleName()));
        }
    }

    /** A remote store, as the engine sees it: the in-process store's decision, answered when the test says. */
    private static final class Later implements RateLimitStore {
        private final InProcessRateLimitStore counts;
        private final List<Runnable> pending = new ArrayList<>();
        private CompletableFuture<RateLimitDecision> answer;

        Later(InProcessRateLimitStore counts) {
            this.counts = counts;
        }

        @Override
        public Object bind(CountKey key) {
            return counts.bind(key);
        }

        @Override
        public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
            answer = new CompletableFuture<>();
            pending.add(() -> answer.complete(counts.decide(partition, request, multiple)));
            return answer;
        }

        @Override
        public CompletionStage<Void> release(RateLimitDecision decision) {
            return counts.release(decision);
        }

        void answer() {
            pending.remove(0).run();
        }

        void fail(Throwable failure) {
            pending.remove(0);
            answer.completeExceptionally(failure);
        }
    }
}
