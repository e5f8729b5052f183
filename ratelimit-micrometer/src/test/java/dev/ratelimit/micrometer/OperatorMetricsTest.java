package dev.ratelimit.micrometer;

import static dev.ratelimit.core.testing.EngineFixtures.beanMethod;
import static dev.ratelimit.core.testing.EngineFixtures.decideNow;
import static dev.ratelimit.core.testing.EngineFixtures.limit;
import static dev.ratelimit.core.testing.EngineFixtures.settings;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.core.testing.ManualClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What operators watch beside the decisions, through the engine: allowed requests near their limit, the store's
 * outage breaker, and refusals answered at home.
 */
class OperatorMetricsTest {

    private final ManualClock clock = new ManualClock();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MicrometerRateLimitMetrics metrics = new MicrometerRateLimitMetrics(registry);

    @Test
    void anAllowedRequestThatLeavesLessThanAFifthOfItsLimitIsNearTheLimit() {
        RateLimitEngine engine = engine(new InProcessRateLimitStore(100, clock), settings());
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 10, 60)));

        for (int i = 1; i <= 8; i++) { // leaves 9 .. 2: two is a fifth, not less
            assertThat(decide(engine, limits, "p").allowed()).isTrue();
        }
        assertThat(nearLimit("default")).as("after 8 of 10").isZero();
        decide(engine, limits, "p"); // leaves 1
        decide(engine, limits, "p"); // leaves 0
        assertThat(decide(engine, limits, "p").allowed()).isFalse();

        assertThat(nearLimit("default")).as("the 9th and 10th; the refusal is not near, it is over").isEqualTo(2);
        assertThat(requests("default", "allowed")).as("near the limit is a part of allowed").isEqualTo(10);
        assertThat(nearLimit("default")).isLessThanOrEqualTo(requests("default", "allowed"));
    }

    @Test
    void aLimitOfOneIsNearItsLimitOnItsOnlyAllowedRequest() {
        RateLimitEngine engine = engine(new InProcessRateLimitStore(100, clock), settings());
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("once", 1, 60)));

        decide(engine, limits, "p");

        assertThat(nearLimit("once")).isEqualTo(1);
        assertThat(RateLimitMetrics.nearLimit(20, 100)).as("a fifth left is not less than a fifth").isFalse();
        assertThat(RateLimitMetrics.nearLimit(19, 100)).isTrue();
        assertThat(RateLimitMetrics.nearLimit(Integer.MAX_VALUE, Integer.MAX_VALUE)).as("no overflow").isFalse();
    }

    @Test
    void theBreakerGaugeIsOneWhileTheStoreIsUnreachableAndZeroOnceItAnswers() {
        SharedStore store = new SharedStore(clock);
        RateLimitEngine engine = engine(store, settings("ratelimit.store.on-failure", "allow",
                "ratelimit.store.retry-millis", "1000"));
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("default", 10, 60)));

        decide(engine, limits, "p");
        assertThat(breaker("shared")).as("answering").isZero();

        store.unreachable = true;
        decide(engine, limits, "p");
        assertThat(breaker("shared")).as("unreachable: calls go without it").isEqualTo(1);

        store.unreachable = false;
        clock.advanceMillis(1000); // the probe
        decide(engine, limits, "p");
        assertThat(breaker("shared")).as("it answered the probe").isZero();
    }

    @Test
    void aRefusalAnsweredAtHomeIsCountedRefusedAndRefusedAtHomeForItsLimitOnly() {
        SharedStore store = new SharedStore(clock);
        RateLimitEngine engine = engine(store, settings());
        store.subscribed();
        BoundLimits limits = engine.binder().bind(beanMethod("TodoResource.all()", limit("module", 100, 60),
                limit("default", 2, 60)));

        decide(engine, limits, "p");
        decide(engine, limits, "p");
        assertThat(decide(engine, limits, "p").allowed()).as("the store refuses").isFalse();
        int calls = store.acquires.get();
        assertThat(decide(engine, limits, "p").allowed()).isFalse();
        assertThat(decide(engine, limits, "p").allowed()).isFalse();

        assertThat(store.acquires.get()).as("the last two were answered at home").isEqualTo(calls);
        assertThat(refusedAtHome("default")).isEqualTo(2);
        assertThat(requests("default", "refused")).isEqualTo(3);
        assertThat(refusedAtHome("module")).as("module refused nothing").isZero();
    }

    @Test
    void nearLimitAndRefusedAtHomeIncrementsAllocateNothing() {
        RateLimitMetrics.Counter near = metrics.nearLimit("default", "none");
        RateLimitMetrics.Counter home = metrics.refusedAtHome("default", "none");
        for (int i = 0; i < 200_000; i++) {
            near.increment();
            home.increment();
            RateLimitMetrics.nearLimit(i, 100);
        }
        long before = allocatedBytes();
        for (int i = 0; i < 100_000; i++) {
            if (RateLimitMetrics.nearLimit(i % 100, 100)) {
                near.increment();
            }
            home.increment();
        }
        long allocated = allocatedBytes() - before;

        assertThat(allocated).as("bytes allocated by 100000 checks and increments").isLessThan(16 * 1_000);
    }

    // ---------------------------------------------------------------- helpers

    private RateLimitEngine engine(RateLimitStore store, dev.ratelimit.core.config.RateLimitSettings settings) {
        return RateLimitEngine.builder(settings, store).metrics(metrics).clock(clock).build();
    }

    private static RateLimitDecision decide(RateLimitEngine engine, BoundLimits limits, String partition) {
        return decideNow(engine, engine.ledger(partition), limits);
    }

    private double requests(String policy, String outcome) {
        return registry.get(RateLimitMetrics.REQUESTS).tags(RateLimitMetrics.POLICY, policy, RateLimitMetrics.OUTCOME,
                outcome, RateLimitMetrics.PLAN, "none").counter().count();
    }

    private double nearLimit(String policy) {
        return registry.get(RateLimitMetrics.NEAR_LIMIT).tags(RateLimitMetrics.POLICY, policy, RateLimitMetrics.PLAN,
                "none").counter().count();
    }

    private double refusedAtHome(String policy) {
        return registry.get(RateLimitMetrics.REFUSED_AT_HOME).tags(RateLimitMetrics.POLICY, policy,
                RateLimitMetrics.PLAN, "none").counter().count();
    }

    private double breaker(String store) {
        return registry.get(RateLimitMetrics.BREAKER_OPEN).tags(RateLimitMetrics.STORE, store).gauge().value();
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    /**
     * A store several instances could share, in one JVM: in-process counts answered as a stage (so the engine treats
     * it as remote), announcing (so refusals are remembered), and unreachable when the test says.
     */
    private static final class SharedStore implements RateLimitStore {
        final InProcessRateLimitStore counts;
        final AtomicInteger acquires = new AtomicInteger();
        volatile boolean unreachable;
        private volatile CountListener listener;

        SharedStore(ManualClock clock) {
            this.counts = new InProcessRateLimitStore(100, clock);
        }

        void subscribed() {
            listener.anyMayHaveGained();
        }

        @Override
        public boolean announceTo(CountListener listener) {
            this.listener = listener;
            return true;
        }

        @Override
        public Object bind(CountKey key) {
            return counts.bind(key);
        }

        @Override
        public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
            acquires.incrementAndGet();
            if (unreachable) {
                return CompletableFuture.failedFuture(new IOException("connection refused"));
            }
            return CompletableFuture.completedFuture(counts.decide(partition, request, multiple));
        }

        @Override
        public CompletionStage<Void> release(RateLimitDecision decision) {
            return counts.release(decision);
        }

        @Override
        public String storeName() {
            return "shared";
        }
    }
}
