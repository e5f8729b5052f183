package dev.ratelimit.core.testing;

import static dev.ratelimit.core.testing.EngineFixtures.beanMethod;
import static dev.ratelimit.core.testing.EngineFixtures.decideNow;
import static dev.ratelimit.core.testing.EngineFixtures.limit;
import static dev.ratelimit.core.testing.EngineFixtures.resourceMethod;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

/**
 * Refusals answered at home by two application instances on one shared store (two engines, each on a store of its
 * own, as two JVMs would have): a flood of one caller costs about one call to the store per instance; a reset, a
 * give-back (a refused request's, or a success of a limit that counts only failures) or a raised limit on one instance
 * lets the caller remembered on the other in at once; counts stay exact. The same scenarios for every store that
 * counts across instances and announces its gains; its tests give each instance's store, and count the calls that
 * reach the shared back end (Redis' script calls, the grid's calls).
 */
public final class RefusalsAcrossInstances {

    private static final LimitDeclaration MODULE = limit("module", 100, 60);
    private static final LimitDeclaration DEFAULT = limit("default", 3, 60);

    private final IntFunction<RateLimitStore> stores;
    private final LongSupplier calls;
    private final Duration timeout;
    /** How long something real (an announcement, a member leaving) may take to show. */
    private final long awaitSeconds;

    /**
     * @param stores  a new store of instance {@code i} (0 or 1) on the shared back end, each time it is called
     * @param calls   the calls that reached the shared back end so far, from every store made: each decision the
     *                store takes there costs one
     * @param timeout how long the store may take to answer: a loaded machine must not fall back to the policy
     */
    public RefusalsAcrossInstances(IntFunction<RateLimitStore> stores, LongSupplier calls, Duration timeout) {
        this.stores = stores;
        this.calls = calls;
        this.timeout = timeout;
        this.awaitSeconds = Math.max(15, timeout.toSeconds());
    }

    /**
     * 600 refused requests of one caller through two instances cost at most one call to the store per instance, and
     * are answered as the store would answer them: the same state and permits left for each limit, the same reset and
     * retry-after (to the second).
     */
    public void aFloodFromOneCallerCostsAtMostOneCallPerInstanceAndIsAnsweredAsTheStoreWould() throws Exception {
        Instance a = instance(0);
        Instance b = instance(1);
        BoundLimits onA = a.engine.binder().bind(beanMethod("TodoResource.all()", MODULE, DEFAULT));
        BoundLimits onB = b.engine.binder().bind(beanMethod("TodoResource.all()", MODULE, DEFAULT));
        for (int i = 0; i < 3; i++) {
            Instance at = i % 2 == 0 ? a : b;
            assertThat(decideNow(at.engine, at.engine.ledger("flood"), i % 2 == 0 ? onA : onB).allowed()).isTrue();
        }
        assertThat(decideNow(a.engine, a.engine.ledger("flood"), onA).allowed()).as("the first refusal").isFalse();
        long before = calls.getAsLong();

        RateLimitDecision last = null;
        for (int i = 0; i < 600; i++) {
            Instance at = i % 2 == 0 ? b : a;
            last = decideNow(at.engine, at.engine.ledger("flood"), i % 2 == 0 ? onB : onA);
            assertThat(last.allowed()).isFalse();
        }

        assertThat(calls.getAsLong() - before).as("calls to the store of 600 refused requests through two instances")
                .isLessThanOrEqualTo(2);
        RateLimitDecision store = a.store.acquire("flood", last.request(), 1).toCompletableFuture()
                .get(timeout.toSeconds(), TimeUnit.SECONDS);
        assertThat(last.size()).isEqualTo(2);
        for (int i = 0; i < last.size(); i++) {
            Outcome remembered = last.outcome(i);
            Outcome now = store.outcome(i);
            assertThat(remembered.state()).isEqualTo(now.state());
            assertThat(remembered.remaining()).isEqualTo(now.remaining());
            assertThat(remembered.resetSeconds()).isBetween(now.resetSeconds(), now.resetSeconds() + 1);
        }
        assertThat(last.retryAfterSeconds()).isBetween(store.retryAfterSeconds(), store.retryAfterSeconds() + 1);
    }

    /** The admin API's reset on one instance lets the caller remembered on the other in at once. */
    public void anAdminResetOnOneInstanceLetsTheCallerInOnTheOtherAtOnce() throws Exception {
        Instance a = instance(0);
        Instance b = instance(1);
        a.engine.binder().bind(beanMethod("TodoResource.all()", DEFAULT));
        BoundLimits onB = b.engine.binder().bind(beanMethod("TodoResource.all()", DEFAULT));
        refuseAndRemember(b, onB, "reset");

        a.engine.admin().reset("default", "reset", null, "ops").toCompletableFuture()
                .get(timeout.toSeconds(), TimeUnit.SECONDS);

        awaitUntil("let in on the other instance", () -> decideNow(b.engine, b.engine.ledger("reset"), onB).allowed());
    }

    /**
     * A request refused by a later limit on one instance gives its permit back, and that lets the caller remembered on
     * the other instance in at once.
     */
    public void aGiveBackThroughOneInstanceLetsARememberedCallerInOnTheOtherAtOnce() throws Exception {
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

    /**
     * A success of a limit that counts only failures, on one instance, gives its permit back, and that lets the caller
     * remembered on the other instance in at once; the count stays exact.
     */
    public void aSuccessCountingOnlyFailuresOnOneInstanceLetsTheCallerRememberedOnTheOtherInAtOnce() throws Exception {
        Instance a = instance(0);
        Instance b = instance(1);
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

    /**
     * A limit raised live on both instances lets the caller remembered on one of them in at once: decided by the
     * store (one call), not by what was remembered; counts stay exact across instances.
     */
    public void aRaisedLimitAppliedLiveOnBothInstancesLetsTheCallerRememberedOnTheOtherInAtOnce() throws Exception {
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

        long before = calls.getAsLong();
        assertThat(decideNow(b.engine, b.engine.ledger("raised"), onB).allowed())
                .as("let in at once on the instance that remembered the refusal").isTrue();
        assertThat(calls.getAsLong() - before).as("decided by the store, not by what was remembered").isEqualTo(1);
        assertThat(decideNow(a.engine, a.engine.ledger("raised"), onA).allowed())
                .as("the fourth permit is spent: counts stay exact across instances").isFalse();
    }

    /** 200 requests at once through two instances under a limit of 100 admit exactly 100. */
    public void twoHundredConcurrentRequestsThroughTwoInstancesUnderALimitOfOneHundredAdmitExactlyOneHundred()
            throws Exception {
        Instance a = instance(0);
        Instance b = instance(1);
        LimitDeclaration hundred = limit("hundred", 100, 60);
        BoundLimits onA = a.engine.binder().bind(beanMethod("TodoResource.all()", hundred));
        BoundLimits onB = b.engine.binder().bind(beanMethod("TodoResource.all()", hundred));
        assertThat(ManyInstances.admittedConcurrently(200, "concurrent", 2 * awaitSeconds, List.of(a.engine, b.engine),
                List.of(onA, onB))).isEqualTo(100);
    }

    /**
     * After {@code event} (for instance a grid member that leaves, which may have taken counts with it), a refused
     * request of a caller remembered on instance 1 asks the store again.
     *
     * @param event what makes every instance forget what it remembered
     */
    public void afterwardsARefusedRequestAsksTheStoreAgain(Callable<?> event) throws Exception {
        Instance b = instance(1);
        BoundLimits onB = b.engine.binder().bind(beanMethod("TodoResource.all()", DEFAULT));
        refuseAndRemember(b, onB, "forgotten");

        event.call();

        awaitUntil("a refused request asks the store again", () -> {
            long before = calls.getAsLong();
            boolean refused = !decideNow(b.engine, b.engine.ledger("forgotten"), onB).allowed();
            return refused && calls.getAsLong() > before;
        });
    }

    // ------------------------------------------------------------------------------------------------

    /** One application instance: its store, and its engine on it. */
    private record Instance(RateLimitStore store, RateLimitEngine engine) {
    }

    /** Instance {@code i}: an engine on a store of its own; listening (refusals remembered) before it is returned. */
    private Instance instance(int i) throws Exception {
        RateLimitStore store = stores.apply(i);
        RateLimitEngine engine = RateLimitEngine.builder(settings(Map.of()), store).build();
        Instance instance = new Instance(store, engine);
        BoundLimits probe = engine.binder().bind(beanMethod("Probe.probe()", limit("probe", 1, 60)));
        String partition = "probe-" + UUID.randomUUID();
        decideNow(engine, engine.ledger(partition), probe);
        awaitRemembered(instance, probe, partition);
        return instance;
    }

    /** The store's timeout (a loaded machine must not fall back to the policy); memory long enough for any run. */
    private RateLimitSettings settings(Map<String, String> more) {
        Map<String, String> values = new HashMap<>(Map.of("ratelimit.store.timeout-millis",
                Long.toString(timeout.toMillis()), "ratelimit.store.refusal-memory-millis", "60000"));
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

    /** Waits until a refused request of {@code partition} on {@code instance} is answered without calling the store. */
    private void awaitRemembered(Instance instance, BoundLimits limits, String partition) throws Exception {
        awaitUntil("the refusal answered at home", () -> {
            long before = calls.getAsLong();
            boolean refused = !decideNow(instance.engine, instance.engine.ledger(partition), limits).allowed();
            return refused && calls.getAsLong() == before;
        });
    }

    private void awaitUntil(String what, Callable<Boolean> condition) throws Exception {
        Await.until(what, awaitSeconds, condition);
    }
}
