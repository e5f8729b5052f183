package dev.ratelimit.redis;

import static dev.ratelimit.core.testing.EngineFixtures.beanMethod;
import static dev.ratelimit.core.testing.EngineFixtures.decideNow;
import static dev.ratelimit.core.testing.EngineFixtures.limit;
import static dev.ratelimit.core.testing.EngineFixtures.resourceMethod;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.core.testing.Await;
import dev.ratelimit.core.testing.ManyInstances;
import dev.ratelimit.redis.testing.CommandStats;
import dev.ratelimit.redis.testing.RedisServerExtension;
import dev.ratelimit.redis.testing.Resp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Refusals answered at home by two application instances on one real Redis: two engines, each on a store
 * and Lettuce client of its own, as two JVMs would be. A flood of one caller costs about one script call per
 * instance; a reset, a give-back (a refused request's, or a success of a limit that counts only failures) or a raised
 * limit on one lets the remembered caller in on the other at once; counts stay exact.
 */
class RefusalsAcrossInstancesTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final LimitDeclaration MODULE = limit("module", 100, 60);
    private static final LimitDeclaration DEFAULT = limit("default", 3, 60);

    private final List<RedisRateLimitStore> stores = new ArrayList<>();
    private final String prefix = "across-" + UUID.randomUUID() + ":";

    @AfterEach
    void close() {
        stores.forEach(RedisRateLimitStore::close);
    }

    @Test
    void aFloodFromOneCallerCostsAtMostOneScriptCallPerInstanceAndIsAnsweredAsTheStoreWould() throws Exception {
        Instance a = instance();
        Instance b = instance();
        BoundLimits onA = a.engine.binder().bind(beanMethod("TodoResource.all()", MODULE, DEFAULT));
        BoundLimits onB = b.engine.binder().bind(beanMethod("TodoResource.all()", MODULE, DEFAULT));
        for (int i = 0; i < 3; i++) {
            assertThat(decideNow((i % 2 == 0 ? a : b).engine, (i % 2 == 0 ? a : b).engine.ledger("flood"),
                    i % 2 == 0 ? onA : onB).allowed()).isTrue();
        }
        assertThat(decideNow(a.engine, a.engine.ledger("flood"), onA).allowed()).as("the first refusal").isFalse();
        CommandStats before = stats();

        RateLimitDecision last = null;
        for (int i = 0; i < 600; i++) {
            Instance at = i % 2 == 0 ? b : a;
            last = decideNow(at.engine, at.engine.ledger("flood"), i % 2 == 0 ? onB : onA);
            assertThat(last.allowed()).isFalse();
        }

        assertThat(scriptCalls(before)).as("600 refused requests through two instances").isLessThanOrEqualTo(2);
        RateLimitDecision store = stores.get(0).acquire("flood", last.request(), 1).toCompletableFuture()
                .get(5, TimeUnit.SECONDS);
        for (int i = 0; i < 2; i++) {
            Outcome remembered = last.outcome(i);
            Outcome now = store.outcome(i);
            assertThat(remembered.state()).isEqualTo(now.state());
            assertThat(remembered.remaining()).isEqualTo(now.remaining());
            assertThat(remembered.resetSeconds()).isBetween(now.resetSeconds(), now.resetSeconds() + 1);
        }
        assertThat(last.retryAfterSeconds()).isBetween(store.retryAfterSeconds(), store.retryAfterSeconds() + 1);
    }

    @Test
    void anAdminResetOnOneInstanceLetsTheCallerInOnTheOtherAtOnce() throws Exception {
        Instance a = instance();
        Instance b = instance();
        a.engine.binder().bind(beanMethod("TodoResource.all()", DEFAULT));
        BoundLimits onB = b.engine.binder().bind(beanMethod("TodoResource.all()", DEFAULT));
        refuseAndRemember(b, onB, "reset");

        a.engine.admin().reset("default", "reset", null, "ops").toCompletableFuture().get(5, TimeUnit.SECONDS);

        awaitUntil("let in on the other instance", () -> decideNow(b.engine, b.engine.ledger("reset"), onB).allowed());
    }

    @Test
    void aGiveBackThroughOneInstanceLetsARememberedCallerInOnTheOtherAtOnce() throws Exception {
        Instance a = instance();
        Instance b = instance();
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
    void aSuccessCountingOnlyFailuresOnOneInstanceLetsTheCallerRememberedOnTheOtherInAtOnce() throws Exception {
        Instance a = instance();
        Instance b = instance();
        LimitDeclaration wrongPasswords = LimitDeclaration.builder(DeclaredOn.METHOD, "the test").name("wrong-passwords")
                .permitLimit(1).windowSeconds(60).failuresOnly(true).build();
        BoundLimits onA = a.engine.binder().bindResourceMethod(resourceMethod("Login.login()", wrongPasswords)).transport();
        BoundLimits onB = b.engine.binder().bindResourceMethod(resourceMethod("Login.login()", wrongPasswords)).transport();
        RequestLedger inFlight = a.engine.ledger("failures");
        assertThat(decideNow(a.engine, inFlight, onA).allowed()).as("taken on admission, its outcome not known yet")
                .isTrue();
        awaitRemembered(b, onB, "failures");

        a.engine.settle(inFlight, 200); // a success: the permit goes back, and the refusal's count is announced

        // the memory would hold the refusal for 60 s, and so would the count without the give-back
        awaitUntil("let in on the other instance", () -> decideNow(b.engine, b.engine.ledger("failures"), onB).allowed());
        assertThat(decideNow(a.engine, a.engine.ledger("failures"), onA).allowed())
                .as("the one permit is spent again: counts stay exact").isFalse();
    }

    @Test
    void aRaisedLimitAppliedLiveOnBothInstancesLetsTheCallerRememberedOnTheOtherInAtOnce() throws Exception {
        Instance a = instance();
        Instance b = instance();
        BoundLimits onA = a.engine.binder().bind(beanMethod("TodoResource.all()", DEFAULT));
        BoundLimits onB = b.engine.binder().bind(beanMethod("TodoResource.all()", DEFAULT));
        for (int i = 0; i < 3; i++) {
            assertThat(decideNow(a.engine, a.engine.ledger("raised"), onA).allowed()).as("spent on one instance").isTrue();
        }
        awaitRemembered(b, onB, "raised"); // refused, and remembered, on the other

        RateLimitSettings raised = settings(Map.of("ratelimit.limits.default.permit-limit", "4"));
        a.engine.apply(raised);
        b.engine.apply(raised);

        CommandStats before = stats();
        assertThat(decideNow(b.engine, b.engine.ledger("raised"), onB).allowed())
                .as("let in at once on the instance that remembered the refusal").isTrue();
        assertThat(scriptCalls(before)).as("decided by the store, not by what was remembered").isEqualTo(1);
        assertThat(decideNow(a.engine, a.engine.ledger("raised"), onA).allowed())
                .as("the fourth permit is spent: counts stay exact across instances").isFalse();
    }

    @Test
    void twoHundredConcurrentRequestsThroughTwoInstancesUnderALimitOfOneHundredAdmitExactlyOneHundred() throws Exception {
        Instance a = instance();
        Instance b = instance();
        LimitDeclaration hundred = limit("hundred", 100, 60);
        BoundLimits onA = a.engine.binder().bind(beanMethod("TodoResource.all()", hundred));
        BoundLimits onB = b.engine.binder().bind(beanMethod("TodoResource.all()", hundred));
        assertThat(ManyInstances.admittedConcurrently(200, "concurrent", 30, List.of(a.engine, b.engine),
                List.of(onA, onB))).isEqualTo(100);
    }

    // ------------------------------------------------------------------------------------------------

    private record Instance(RedisRateLimitStore store, RateLimitEngine engine) {
    }

    /** An instance: an engine on a store of its own; listening (its subscription in place) before it is returned. */
    private Instance instance() throws Exception {
        RedisRateLimitStore store = RedisRateLimitStore.builder(REDIS.uri()).keyPrefix(prefix)
                .timeout(Duration.ofSeconds(5)).build();
        stores.add(store);
        assertThat(store.awaitConnection(Duration.ofSeconds(10))).isTrue();
        // 5 s to answer: a loaded machine must not fall back to the policy; memory long enough for any run
        RateLimitEngine engine = RateLimitEngine.builder(settings(Map.of()), store).build();
        Instance instance = new Instance(store, engine);
        BoundLimits probe = engine.binder().bind(beanMethod("Probe.probe()", limit("probe", 1, 60)));
        String partition = "probe-" + UUID.randomUUID();
        decideNow(engine, engine.ledger(partition), probe);
        awaitRemembered(instance, probe, partition);
        return instance;
    }

    private static RateLimitSettings settings(Map<String, String> more) {
        Map<String, String> values = new HashMap<>(Map.of("ratelimit.store.timeout-millis", "5000",
                "ratelimit.store.refusal-memory-millis", "60000"));
        values.putAll(more);
        return RateLimitSettings.of(values);
    }

    /** Spends the limit of {@code partition} on {@code instance}, then waits until its refusal is answered there. */
    private void refuseAndRemember(Instance instance, BoundLimits limits, String partition) throws Exception {
        while (decideNow(instance.engine, instance.engine.ledger(partition), limits).allowed()) {
            // spending
        }
        awaitRemembered(instance, limits, partition);
    }

    /** Waits until a refused request of {@code partition} on {@code instance} is answered without a script call. */
    private void awaitRemembered(Instance instance, BoundLimits limits, String partition) throws Exception {
        awaitUntil("the refusal answered at home", () -> {
            CommandStats before = stats();
            boolean refused = !decideNow(instance.engine, instance.engine.ledger(partition), limits).allowed();
            return refused && scriptCalls(before) == 0;
        });
    }

    private static CommandStats stats() {
        try (Resp resp = REDIS.client()) {
            return CommandStats.of(resp);
        }
    }

    private static long scriptCalls(CommandStats before) {
        return stats().scriptCallsSince(before);
    }

    private static void awaitUntil(String what, Callable<Boolean> condition) throws Exception {
        Await.until(what, 15, condition);
    }
}
