package dev.ratelimit.jcache;

import static dev.ratelimit.core.testing.EngineFixtures.beanMethod;
import static dev.ratelimit.core.testing.EngineFixtures.decideNow;
import static dev.ratelimit.core.testing.EngineFixtures.limit;
import static dev.ratelimit.core.testing.EngineFixtures.resourceMethod;
import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.HazelcastInstance;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.core.testing.Await;
import dev.ratelimit.core.testing.ManyInstances;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Refusals answered at home by two application instances on one Hazelcast cluster: two real members, each with an
 * engine on a store and cache manager of its own, as two JVMs would have. A flood of one caller costs about one call
 * to the grid per instance; a reset or a give-back on one instance, or a raised limit applied live on both, lets the
 * caller remembered on the other in at once; a member that leaves makes every instance forget; counts stay exact. Calls to the grid are counted on the way
 * to it ({@link CountingCache}).
 */
class RefusalsAcrossInstancesTest {

    private static final LimitDeclaration DEFAULT = limit("default", 3, 60);

    @RegisterExtension
    static final TwoMembers GRID = new TwoMembers();

    private final String cache = "across-" + UUID.randomUUID();

    @Test
    void aFloodFromOneCallerCostsAtMostOneGridCallPerInstanceAndIsAnsweredAsTheStoreWould() throws Exception {
        Instance a = instance(0);
        Instance b = instance(1);
        BoundLimits onA = a.engine.binder().bind(beanMethod("TodoResource.all()", DEFAULT));
        BoundLimits onB = b.engine.binder().bind(beanMethod("TodoResource.all()", DEFAULT));
        for (int i = 0; i < 3; i++) {
            Instance at = i % 2 == 0 ? a : b;
            assertThat(decideNow(at.engine, at.engine.ledger("flood"), i % 2 == 0 ? onA : onB).allowed()).isTrue();
        }
        assertThat(decideNow(a.engine, a.engine.ledger("flood"), onA).allowed()).as("the first refusal").isFalse();
        long before = a.calls() + b.calls();

        RateLimitDecision last = null;
        for (int i = 0; i < 600; i++) {
            Instance at = i % 2 == 0 ? b : a;
            last = decideNow(at.engine, at.engine.ledger("flood"), i % 2 == 0 ? onB : onA);
            assertThat(last.allowed()).isFalse();
        }

        assertThat(a.calls() + b.calls() - before).as("grid calls of 600 refused requests through two instances")
                .isLessThanOrEqualTo(2);
        RateLimitDecision store = a.store.acquire("flood", last.request(), 1).toCompletableFuture()
                .get(30, TimeUnit.SECONDS);
        Outcome remembered = last.outcome(0);
        Outcome now = store.outcome(0);
        assertThat(remembered.state()).isEqualTo(now.state());
        assertThat(remembered.remaining()).isEqualTo(now.remaining());
        assertThat(remembered.resetSeconds()).isBetween(now.resetSeconds(), now.resetSeconds() + 1);
        assertThat(last.retryAfterSeconds()).isBetween(store.retryAfterSeconds(), store.retryAfterSeconds() + 1);
    }

    @Test
    void anAdminResetOnOneInstanceLetsTheCallerInOnTheOtherAtOnce() throws Exception {
        Instance a = instance(0);
        Instance b = instance(1);
        a.engine.binder().bind(beanMethod("TodoResource.all()", DEFAULT));
        BoundLimits onB = b.engine.binder().bind(beanMethod("TodoResource.all()", DEFAULT));
        refuseAndRemember(b, onB, "reset");

        a.engine.admin().reset("default", "reset", null, "ops").toCompletableFuture().get(30, TimeUnit.SECONDS);

        awaitUntil("let in on the other instance", () -> decideNow(b.engine, b.engine.ledger("reset"), onB).allowed());
    }

    @Test
    void aGiveBackThroughOneInstanceLetsARememberedCallerInOnTheOtherAtOnce() throws Exception {
        Instance a = instance(0);
        Instance b = instance(1);
        BoundLimits resourceA = a.engine.binder().bindResourceMethod(resourceMethod("TodoResource.all()", DEFAULT))
                .transport();
        BoundLimits beanA = a.engine.binder().bind(beanMethod("ExportService.export()", limit("export", 1, 60)));
        BoundLimits onB = b.engine.binder().bindResourceMethod(resourceMethod("TodoResource.all()", DEFAULT))
                .transport();
        decideNow(a.engine, a.engine.ledger("give"), beanA); // the bean's only permit: the request below is refused by it
        decideNow(b.engine, b.engine.ledger("give"), onB);
        decideNow(b.engine, b.engine.ledger("give"), onB);
        RequestLedger refusedLater = a.engine.ledger("give");
        assertThat(decideNow(a.engine, refusedLater, resourceA).allowed()).as("the last permit").isTrue();
        awaitRemembered(b, onB, "give");

        assertThat(decideNow(a.engine, refusedLater, beanA).allowed()).as("refused by a later limit").isFalse();
        a.engine.giveBack(refusedLater);

        awaitUntil("let in on the other instance", () -> decideNow(b.engine, b.engine.ledger("give"), onB).allowed());
    }

    @Test
    void aRaisedLimitAppliedLiveOnBothInstancesLetsTheCallerRememberedOnTheOtherInAtOnce() throws Exception {
        Instance a = instance(0);
        Instance b = instance(1);
        BoundLimits onA = a.engine.binder().bind(beanMethod("TodoResource.all()", DEFAULT));
        BoundLimits onB = b.engine.binder().bind(beanMethod("TodoResource.all()", DEFAULT));
        for (int i = 0; i < 3; i++) {
            assertThat(decideNow(a.engine, a.engine.ledger("raised"), onA).allowed()).as("spent on one instance").isTrue();
        }
        awaitRemembered(b, onB, "raised"); // refused, and remembered, on the other

        RateLimitSettings raised = settings(Map.of("ratelimit.limits.default.permit-limit", "4"));
        a.engine.apply(raised);
        b.engine.apply(raised);

        long before = b.calls();
        assertThat(decideNow(b.engine, b.engine.ledger("raised"), onB).allowed())
                .as("let in at once on the instance that remembered the refusal").isTrue();
        assertThat(b.calls() - before).as("decided by the grid, not by what was remembered").isPositive();
        assertThat(decideNow(a.engine, a.engine.ledger("raised"), onA).allowed())
                .as("the fourth permit is spent: counts stay exact across instances").isFalse();
    }

    @Test
    void aMemberThatLeavesMakesEveryInstanceAskTheGridAgain() throws Exception {
        Instance b = instance(1);
        BoundLimits onB = b.engine.binder().bind(beanMethod("TodoResource.all()", DEFAULT));
        refuseAndRemember(b, onB, "left");
        HazelcastInstance third = GRID.cluster().add();
        third.getLifecycleService().terminate();
        GRID.cluster().members().remove(third);

        awaitUntil("a refused request asks the grid again", () -> {
            long before = b.calls();
            boolean refused = !decideNow(b.engine, b.engine.ledger("left"), onB).allowed();
            return refused && b.calls() > before;
        });
    }

    @Test
    void twoHundredConcurrentRequestsThroughTwoInstancesUnderALimitOfOneHundredAdmitExactlyOneHundred() throws Exception {
        Instance a = instance(0);
        Instance b = instance(1);
        LimitDeclaration hundred = limit("hundred", 100, 60);
        BoundLimits onA = a.engine.binder().bind(beanMethod("TodoResource.all()", hundred));
        BoundLimits onB = b.engine.binder().bind(beanMethod("TodoResource.all()", hundred));
        int admitted = ManyInstances.admittedConcurrently(200, "concurrent", 60, List.of(a.engine, b.engine),
                List.of(onA, onB));
        assertThat(admitted).isEqualTo(100);
    }

    // ------------------------------------------------------------------------------------------------

    private record Instance(JCacheRateLimitStore store, CountingCache counts, RateLimitEngine engine) {
        long calls() {
            return counts.calls();
        }
    }

    /**
     * An instance on member {@code i}: an engine on a store of its own, on a cache manager of its own; listening (its
     * refusals remembered) before it is returned.
     */
    private Instance instance(int i) throws Exception {
        CountingCache counts = new CountingCache(TwoMembers.counts(GRID.newManager(i), cache));
        JCacheRateLimitStore store = GRID.closing(JCacheRateLimitStore.builder(counts.cache()).build());
        // 30 s to answer: a loaded machine must not fall back to the policy; memory long enough for any run
        RateLimitEngine engine = RateLimitEngine.builder(settings(), store).build();
        Instance instance = new Instance(store, counts, engine);
        BoundLimits probe = engine.binder().bind(beanMethod("Probe.probe()", limit("probe", 1, 60)));
        String partition = "probe-" + UUID.randomUUID();
        decideNow(engine, engine.ledger(partition), probe);
        awaitRemembered(instance, probe, partition);
        return instance;
    }

    private static RateLimitSettings settings() {
        return settings(Map.of());
    }

    private static RateLimitSettings settings(Map<String, String> more) {
        Map<String, String> values = new HashMap<>(Map.of("ratelimit.store.timeout-millis", "30000",
                "ratelimit.store.refusal-memory-millis", "60000"));
        values.putAll(more);
        return RateLimitSettings.of(values);
    }

    /** Spends the limit of {@code partition} on {@code instance}, then waits until its refusal is answered there. */
    private static void refuseAndRemember(Instance instance, BoundLimits limits, String partition) throws Exception {
        while (decideNow(instance.engine, instance.engine.ledger(partition), limits).allowed()) {
            // spending
        }
        awaitRemembered(instance, limits, partition);
    }

    /** Waits until a refused request of {@code partition} on {@code instance} is answered without a grid call. */
    private static void awaitRemembered(Instance instance, BoundLimits limits, String partition) throws Exception {
        awaitUntil("the refusal answered at home", () -> {
            long before = instance.calls();
            boolean refused = !decideNow(instance.engine, instance.engine.ledger(partition), limits).allowed();
            return refused && instance.calls() == before;
        });
    }

    private static void awaitUntil(String what, Callable<Boolean> condition) throws Exception {
        Await.until(what, 30, condition);
    }
}
