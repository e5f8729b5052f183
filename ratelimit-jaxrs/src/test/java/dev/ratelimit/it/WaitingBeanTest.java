package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.RateLimit;
import dev.ratelimit.cdi.RateLimitConfiguration;
import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitExceededException;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import io.smallrye.mutiny.Multi;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A call over a limit with {@code maxWaitMillis} waits for its permit: it reserves it (first come, first
 * served) and goes at the instant it exists; a blocking method sleeps and gives the reservation back when
 * interrupted, a {@code CompletionStage} method is delayed without holding a thread; a call that would wait longer
 * than allowed fails at once and reserves nothing. Real time where the waits are the point, with windows of a second or
 * two, judged by lower bounds and by the order of what ran (never by how quickly something happened on a busy machine);
 * the manual clock where the point is arithmetic.
 */
class WaitingBeanTest {

    private static final long SECOND = 1_000_000_000L;

    /** The in-process store, noting every decision, so that a test knows when a call has been decided. */
    @Alternative
    @Priority(1)
    @ApplicationScoped
    public static class NotingStore implements RateLimitStore {
        static final AtomicInteger DECISIONS = new AtomicInteger();
        static final ConcurrentLinkedDeque<RateLimitDecision> DECIDED = new ConcurrentLinkedDeque<>();
        @Inject
        RateLimitConfiguration configuration;
        private InProcessRateLimitStore inProcess;

        /** On the limiter's clock: the manual one when a test asks for it. */
        @PostConstruct
        void start() {
            inProcess = new InProcessRateLimitStore(10_000, configuration.clock());
        }

        @Override
        public Object bind(CountKey key) {
            return inProcess.bind(key);
        }

        @Override
        public boolean answersAtOnce() {
            return true;
        }

        @Override
        public RateLimitDecision decide(String partition, RateLimitRequest request, int multiple) {
            RateLimitDecision decision = inProcess.decide(partition, request, multiple);
            DECIDED.add(decision);
            DECISIONS.incrementAndGet();
            return decision;
        }

        @Override
        public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
            return CompletableFuture.completedFuture(decide(partition, request, multiple));
        }

        @Override
        public CompletionStage<Void> release(RateLimitDecision decision) {
            return inProcess.release(decision);
        }

        /** Waits until {@code count} calls have been decided. */
        static void awaitDecisions(int count) throws InterruptedException {
            long deadline = System.nanoTime() + 10 * SECOND;
            while (DECISIONS.get() < count) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("only " + DECISIONS.get() + " of " + count + " calls were decided");
                }
                Thread.sleep(1);
            }
        }
    }

    /** A partner's API, as the application calls it. */
    @ApplicationScoped
    public static class Partner {

        @RateLimit(name = "partner", permitLimit = 2, windowSeconds = 1, algorithm = RateLimitAlgorithm.STRICT_WINDOW,
                maxWaitMillis = 5000, per = RateLimitPer.APPLICATION)
        public long send() {
            return System.nanoTime();
        }

        @RateLimit(name = "sliding-partner", permitLimit = 2, windowSeconds = 1, maxWaitMillis = 5000,
                per = RateLimitPer.APPLICATION)
        public long sendSliding() {
            return System.nanoTime();
        }

        @RateLimit(name = "impatient", permitLimit = 2, windowSeconds = 1, algorithm = RateLimitAlgorithm.STRICT_WINDOW,
                maxWaitMillis = 500)
        public long sendImpatiently() {
            return System.nanoTime();
        }

        @RateLimit(name = "one-a-second", permitLimit = 1, windowSeconds = 1, algorithm = RateLimitAlgorithm.STRICT_WINDOW,
                maxWaitMillis = 5000)
        public long sendOne() {
            return System.nanoTime();
        }

        @RateLimit(name = "async-partner", permitLimit = 1, windowSeconds = 2, algorithm = RateLimitAlgorithm.STRICT_WINDOW,
                maxWaitMillis = 10_000)
        public CompletionStage<Long> sendAsync() {
            return CompletableFuture.completedFuture(System.nanoTime());
        }

        /** Its items say when the method ran: once its permit existed. */
        @RateLimit(name = "multi-partner", permitLimit = 1, windowSeconds = 2, algorithm = RateLimitAlgorithm.STRICT_WINDOW,
                maxWaitMillis = 10_000)
        public Multi<Long> sendMulti() {
            long ran = System.nanoTime();
            return Multi.createFrom().items(ran, ran);
        }
    }

    @BeforeEach
    void forgetDecisions() {
        NotingStore.DECISIONS.set(0);
        NotingStore.DECIDED.clear();
    }

    @Test
    void sixBlockingCallsFromSixThreadsAllGoInCallOrderTheLastNoSoonerThanTwoSecondsAfterTheFirst() throws Exception {
        try (Embedded app = Embedded.builder().beans(NotingStore.class, Partner.class).startCdi()) {
            Partner partner = app.bean(Partner.class);

            long[] ran = sixCallsInOrder(partner::send);

            assertPairsInCallOrder(ran);
            // a strict window: two in step 0, two in step 9, two in step 18 (a step is 125 ms)
            assertThat(ran[5] - ran[0]).as("first to last, ns").isGreaterThanOrEqualTo(2 * SECOND);
            assertThat(ran[3] - ran[0]).as("first to fourth, ns").isGreaterThanOrEqualTo(SECOND);
        }
    }

    @Test
    void aSlidingWindowGrantsAtMostTwoStepsEarlierThanAStrictOne() throws Exception {
        try (Embedded app = Embedded.builder().beans(NotingStore.class, Partner.class).startCdi()) {
            Partner partner = app.bean(Partner.class);

            long[] ran = sixCallsInOrder(partner::sendSliding);

            // a sliding window: two in step 0, two in step 8, two in step 16, each a permit's return after the last
            assertThat(ran[5] - ran[0]).as("first to last, ns").isGreaterThanOrEqualTo(2 * SECOND - 2 * SECOND / 8);
            assertPairsInCallOrder(ran);
        }
    }

    /**
     * Arithmetic, not time: on the manual clock, which no test moves here, the two permits of the window stay spent and
     * every refusal sees the same instant, so its {@code Retry-After} is exact. That the refused calls did not wait is
     * judged on the best of them (a call that waited would take at least its wait, 1.125 s), and by what they
     * reserved: nothing.
     */
    @Test
    void callsThatWouldWaitLongerThanAllowedFailAtOnceAndReserveNothing() throws Exception {
        try (Embedded app = Embedded.builder().beans(NotingStore.class, Partner.class)
                .config("ratelimit.test.manual-clock", "true").startCdi()) {
            Partner partner = app.bean(Partner.class);
            partner.sendImpatiently();
            partner.sendImpatiently();

            List<Long> took = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                long start = System.nanoTime();
                assertThatThrownBy(partner::sendImpatiently).isInstanceOfSatisfying(RateLimitExceededException.class,
                        refused -> assertThat(refused.getRetryAfterSeconds()).as("its permit exists in 1.125 s").isEqualTo(2));
                took.add(System.nanoTime() - start);
            }

            assertThat(took.stream().min(Long::compare).orElseThrow())
                    .as("the quickest refusal, ns: none waited for the permit it would have had (%s)", took)
                    .isLessThan(SECOND);
            assertThat(NotingStore.DECIDED).as("nothing was reserved: the refusals spent nothing")
                    .filteredOn(RateLimitDecision::allowed).hasSize(2);
            assertThat(NotingStore.DECIDED).as("and none was granted a wait").filteredOn(d -> !d.allowed())
                    .hasSize(4).allSatisfy(refused -> assertThat(refused.waitNanos()).isZero());
        }
    }

    @Test
    void interruptingASleepingCallGivesItsReservationBackToTheNextCaller() throws Exception {
        try (Embedded app = Embedded.builder().beans(NotingStore.class, Partner.class).startCdi()) {
            Partner partner = app.bean(Partner.class);
            partner.sendOne(); // the one permit of this window
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
            Thread sleeper = new Thread(() -> {
                try {
                    partner.sendOne();
                } catch (Throwable t) {
                    failure.set(t);
                    stillInterrupted.set(Thread.currentThread().isInterrupted());
                }
            });
            sleeper.start();
            NotingStore.awaitDecisions(2);
            RateLimitDecision interrupted = NotingStore.DECIDED.getLast();
            assertThat(interrupted.allowed()).isTrue();
            assertThat(interrupted.waitNanos()).as("reserved for step 9").isPositive();

            sleeper.interrupt();
            sleeper.join(5_000);

            assertThat(failure.get()).isInstanceOf(CancellationException.class).hasMessageContaining("given back");
            assertThat(stillInterrupted.get()).as("the interrupt status is kept").isTrue();
            ExecutorService next = Executors.newSingleThreadExecutor();
            try {
                Future<Long> third = next.submit(partner::sendOne);
                NotingStore.awaitDecisions(3);
                RateLimitDecision after = NotingStore.DECIDED.getLast();
                assertThat(after.waitNanos()).as("the next caller takes the freed permit of step 9, not one of step 18")
                        .isLessThanOrEqualTo(interrupted.waitNanos());
                assertThat(third.get(10, TimeUnit.SECONDS)).isPositive();
            } finally {
                next.shutdownNow();
            }
        }
    }

    /**
     * The caller's one thread is free while a call waits: a task submitted to it after the three calls runs before the
     * second call's method does (a call that held its thread until its permit would run first). Judged by the order of
     * what ran, not by how long anything took.
     */
    @Test
    void aCompletionStageMethodWaitsWithoutHoldingAThread() throws Exception {
        try (Embedded app = Embedded.builder().beans(NotingStore.class, Partner.class).startCdi()) {
            Partner partner = app.bean(Partner.class);
            ExecutorService caller = Executors.newSingleThreadExecutor();
            try {
                List<CompletableFuture<Long>> stages = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    stages.add(caller.submit(() -> partner.sendAsync().toCompletableFuture()).get(15, TimeUnit.SECONDS));
                }
                assertThat(NotingStore.DECIDED).as("three reservations: now, in 2.25 s, in 4.5 s")
                        .allMatch(RateLimitDecision::allowed);

                long probeRan = caller.submit(System::nanoTime).get(15, TimeUnit.SECONDS);

                long[] ran = new long[3];
                for (int i = 0; i < 3; i++) {
                    ran[i] = stages.get(i).get(15, TimeUnit.SECONDS);
                }
                assertThat(probeRan).as("the only caller thread ran a task while the second call waited, ns")
                        .isLessThan(ran[1]);
                assertThat(ran[1] - ran[0]).as("one permit per 2 s window, ns").isGreaterThanOrEqualTo(2 * SECOND);
                assertThat(ran[2] - ran[1]).isGreaterThanOrEqualTo(2 * SECOND);
            } finally {
                caller.shutdownNow();
            }
        }
    }

    /**
     * A method that returns a Mutiny {@code Multi} (Mutiny on the class path) waits as a {@code CompletionStage} does:
     * calling it and subscribing return at once, and its items come once its permit exists.
     */
    @Test
    void aMultiMethodWaitsWithoutHoldingAThread() throws Exception {
        try (Embedded app = Embedded.builder().beans(NotingStore.class, Partner.class).startCdi()) {
            Partner partner = app.bean(Partner.class);
            List<CompletableFuture<List<Long>>> streams = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                streams.add(partner.sendMulti().collect().asList().subscribeAsCompletionStage().toCompletableFuture());
            }
            long subscribed = System.nanoTime();
            NotingStore.awaitDecisions(2);

            List<Long> first = streams.get(0).get(15, TimeUnit.SECONDS);
            List<Long> second = streams.get(1).get(15, TimeUnit.SECONDS);
            assertThat(NotingStore.DECIDED).as("two reservations: now, and in 2.25 s").allMatch(RateLimitDecision::allowed);
            assertThat(NotingStore.DECIDED.getLast().waitNanos()).as("the second waits for its permit").isPositive();
            assertThat(first).hasSize(2);
            assertThat(second).hasSize(2);
            assertThat(subscribed).as("this thread subscribed to both before the second's items, ns").isLessThan(second.get(0));
            assertThat(second.get(0) - first.get(0)).as("one permit per 2 s window, ns").isGreaterThanOrEqualTo(2 * SECOND);
        }
    }

    /**
     * Two calls a window: each pair went after the pair that asked before it (the two of a pair are granted the same
     * instant, so between them the order of waking decides).
     */
    private static void assertPairsInCallOrder(long[] ran) {
        for (int pair = 1; pair < 3; pair++) {
            long earlierLast = Math.max(ran[2 * pair - 2], ran[2 * pair - 1]);
            assertThat(Math.min(ran[2 * pair], ran[2 * pair + 1])).as("pair %d went after pair %d", pair, pair - 1)
                    .isGreaterThan(earlierLast);
        }
    }

    /** Six calls, each from a thread of its own, each started once the one before has been decided. */
    private static long[] sixCallsInOrder(java.util.concurrent.Callable<Long> call)
            throws InterruptedException, ExecutionException, java.util.concurrent.TimeoutException {
        ExecutorService threads = Executors.newFixedThreadPool(6);
        try {
            List<Future<Long>> calls = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                calls.add(threads.submit(call));
                NotingStore.awaitDecisions(i + 1);
            }
            assertThat(NotingStore.DECIDED).allMatch(RateLimitDecision::allowed);
            long[] ran = new long[6];
            for (int i = 0; i < 6; i++) {
                ran[i] = calls.get(i).get(15, TimeUnit.SECONDS);
            }
            return ran;
        } finally {
            threads.shutdownNow();
        }
    }
}
