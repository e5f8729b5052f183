package dev.ratelimit.core.testing;

import static dev.ratelimit.core.testing.EngineFixtures.beanMethod;
import static dev.ratelimit.core.testing.EngineFixtures.decideNow;
import static dev.ratelimit.core.testing.EngineFixtures.limit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.CountState;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.engine.RateLimitEngine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

/**
 * Slices (docs/stores.md, "Exact or sliced") through two application instances on one shared store: two engines, each
 * on a store of its own, as two JVMs would have, on one manual clock that the stores count on too. Never over the
 * limit (concurrent requests, the densest span of each algorithm), every unused permit back after a lease, an instance
 * that dies strands its slice only until the window passes, a reset or a live change reaches the other instance's
 * slices at once, a partition seen once a lease costs one store call a request. The same scenarios for every store
 * that slices; its tests give each instance's store on {@link #clock()}, and count the calls that reach the shared back
 * end.
 */
public final class SlicesAcrossInstances {

    private static final long LEASE_MILLIS = 1000;

    private final IntFunction<RateLimitStore> stores;
    private final ManualClock clock;
    private final LongSupplier calls;
    private final Duration timeout;
    private final long awaitSeconds;

    /**
     * @param stores  a new store of instance {@code i} (0 or 1) on the shared back end, counting on {@code clock}
     * @param clock   the clock of the stores and of the engines
     * @param calls   the calls that reached the shared back end so far, from every store made
     * @param timeout how long the store may take to answer: a loaded machine must not fall back to the policy
     */
    public SlicesAcrossInstances(IntFunction<RateLimitStore> stores, ManualClock clock, LongSupplier calls,
                                 Duration timeout) {
        this.stores = stores;
        this.clock = clock;
        this.calls = calls;
        this.timeout = timeout;
        this.awaitSeconds = Math.max(15, timeout.toSeconds());
    }

    /** The clock the stores must count on. */
    public ManualClock clock() {
        return clock;
    }

    /**
     * 2 000 concurrent requests through two instances under a sliced limit of 100 admit at most 100; under a limit of
     * 1 000, 300 concurrent requests are all admitted, and after one lease with no traffic the store's count holds
     * exactly what was admitted: every unused permit of every slice came back.
     */
    public void twoThousandConcurrentRequestsUnderOneHundredAdmitAtMostOneHundredAndEveryUnusedPermitComesBack()
            throws Exception {
        Instance a = instance(0);
        Instance b = instance(1);
        LimitDeclaration hundred = limit("hundred", 100, 60);
        List<BoundLimits> bound = List.of(a.bind("Hundred.all()", hundred), b.bind("Hundred.all()", hundred));
        Admitted flood = concurrently(2000, "flood", List.of(a, b), bound);
        assertThat(flood.count).as("admitted of 2 000 under a limit of 100").isLessThanOrEqualTo(100);
        assertThat(flood.atHome).as("decided at home, from slices").isPositive();

        LimitDeclaration thousand = limit("thousand", 1000, 60);
        List<BoundLimits> both = List.of(a.bind("Thousand.all()", thousand), b.bind("Thousand.all()", thousand));
        long before = calls.getAsLong();
        Admitted some = concurrently(300, "some", List.of(a, b), both);
        assertThat(some.count).as("300 under a limit of 1 000").isEqualTo(300);
        assertThat(calls.getAsLong() - before).as("store calls of 300 requests, sliced").isLessThan(300);

        clock.advanceMillis(LEASE_MILLIS);
        a.engine.guard().sweepSlices();
        b.engine.guard().sweepSlices();
        RateLimitRequest request = some.request;
        awaitUntil("every unused permit back", () -> remaining(a, "some", request) == 1000 - 300);
    }

    /**
     * The densest span of admitted requests through two instances, each deciding several requests of one caller at
     * once every 5 ms for 6 s, is never above the algorithm's bound (the strict window: N in any span of the window),
     * sliced as exactly; and slices were used.
     */
    public void theDensestSpanThroughTwoInstancesStaysWithinEachAlgorithmsBound(RateLimitAlgorithm algorithm)
            throws Exception {
        Instance a = instance(0);
        Instance b = instance(1);
        int n = 40;
        LimitDeclaration span = limit(new RateLimitPolicy("span", n, 1, algorithm), 1);
        List<BoundLimits> bound = List.of(a.bind("Span.all()", span), b.bind("Span.all()", span));
        long second = TimeUnit.SECONDS.toNanos(1);
        long tick = TimeUnit.MILLISECONDS.toNanos(5);
        List<Long> admitted = new ArrayList<>();
        int atHome = 0;
        long t0 = clock.now();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            for (long t = 0; t < 6 * second; t += tick) {
                clock.set(t0 + t);
                Admitted now = concurrently(pool, 4, "span", List.of(a, b), bound);
                atHome += now.atHome;
                for (int i = 0; i < now.count; i++) {
                    admitted.add(t);
                }
            }
        } finally {
            pool.shutdownNow();
        }
        int densest = 0;
        for (int i = 0; i < admitted.size(); i++) {
            int j = i;
            while (j < admitted.size() && admitted.get(j) - admitted.get(i) < second) {
                j++;
            }
            densest = Math.max(densest, j - i);
        }
        int bound0 = algorithm == RateLimitAlgorithm.STRICT_WINDOW ? n : 2 * n - 1;
        assertThat(densest).as("most admitted in any 1 s span by %s, sliced", algorithm).isLessThanOrEqualTo(bound0);
        assertThat(atHome).as("requests decided at home").isPositive();
        assertThat(admitted).as("admitted over 6 s: a busy caller still gets most of its limit").hasSizeGreaterThan(3 * n);
    }

    /**
     * An instance that dies holding a slice (its store closed without a give-back): the other never admits over the
     * limit, and the stranded permits return with the window.
     */
    public void anInstanceKilledHoldingASliceStrandsItOnlyUntilTheWindowPasses() throws Exception {
        Instance a = instance(0);
        Instance b = instance(1);
        LimitDeclaration hundred = limit("killed", 100, 60);
        BoundLimits onA = a.bind("Killed.all()", hundred);
        BoundLimits onB = b.bind("Killed.all()", hundred);
        int admitted = 0;
        for (int i = 0; i < 30; i++) {
            admitted += decideNow(a.engine, a.engine.ledger("killed"), onA).allowed() ? 1 : 0;
        }
        assertThat(admitted).isEqualTo(30);
        // instance a dies now, holding what is left of its slice: never given back

        int onOther = 0;
        for (int i = 0; i < 200; i++) {
            onOther += decideNow(b.engine, b.engine.ledger("killed"), onB).allowed() ? 1 : 0;
        }
        assertThat(admitted + onOther).as("admitted through both, one of them dead").isLessThanOrEqualTo(100);

        clock.advanceSeconds(61);
        int after = 0;
        for (int i = 0; i < 200; i++) {
            after += decideNow(b.engine, b.engine.ledger("killed"), onB).allowed() ? 1 : 0;
        }
        assertThat(after).as("a window later: every permit is back, the stranded ones too").isEqualTo(100);
    }

    /**
     * An admin reset on one instance drops the other instance's slice of that count at once: afterwards the two
     * together admit at most the limit (a slice taken before the reset would have been the limit's on top).
     */
    public void anAdminResetOnOneInstanceDropsTheOthersSlicesAtOnce() throws Exception {
        Instance a = instance(0);
        Instance b = instance(1);
        LimitDeclaration hundred = limit("reset", 100, 60);
        BoundLimits onA = a.bind("Reset.all()", hundred);
        BoundLimits onB = b.bind("Reset.all()", hundred);
        for (int i = 0; i < 40; i++) {
            assertThat(decideNow(b.engine, b.engine.ledger("reset"), onB).allowed()).isTrue();
        }
        assertThat(atHome(b, onB, "reset")).as("b decides from a slice").isTrue();

        a.engine.admin().reset("reset", "reset", null, "ops").toCompletableFuture()
                .get(timeout.toSeconds(), TimeUnit.SECONDS);
        // time moves between a reset and the next request, as it always does for real: the fresh count is anchored
        // after the old one, so the give-back of b's dropped slice (a receipt of the old count) is ignored, as the
        // stores promise. On a clock that stands still, the fresh count would be anchored at the old one's instant and
        // take that receipt as its own
        clock.advanceMillis(1);

        awaitUntil("b's slice dropped: its next request asks the store", () -> !atHome(b, onB, "reset"));
        // the probes before the last were decided from the slice b took before the reset (permits of the count as it
        // was, used while the announcement travelled); the last one asked the store, whose count is fresh, and was
        // allowed: from it on, the two instances share the new count
        int admitted = 1;
        for (int i = 0; i < 150; i++) {
            Instance at = i % 2 == 0 ? a : b;
            admitted += decideNow(at.engine, at.engine.ledger("reset"), i % 2 == 0 ? onA : onB).allowed() ? 1 : 0;
        }
        assertThat(admitted).as("admitted after the reset, through both").isLessThanOrEqualTo(100);
    }

    /**
     * A live change of the limit applied on both instances gives their slices back at once: the store's count then
     * holds exactly what was admitted, and the next request asks the store.
     */
    public void aLiveChangeGivesTheSlicesBackAtOnce() throws Exception {
        Instance a = instance(0);
        Instance b = instance(1);
        LimitDeclaration hundred = limit("live", 100, 60);
        a.bind("Live.all()", hundred);
        BoundLimits onB = b.bind("Live.all()", hundred);
        RateLimitDecision last = null;
        for (int i = 0; i < 30; i++) {
            last = decideNow(b.engine, b.engine.ledger("live"), onB);
            assertThat(last.allowed()).isTrue();
        }
        assertThat(atHome(b, onB, "live")).as("b decides from a slice").isTrue();
        int admitted = 31;
        RateLimitRequest request = last.request();

        RateLimitSettings raised = settings(Map.of("ratelimit.limits.live.permit-limit", "200"));
        a.engine.apply(raised);
        b.engine.apply(raised);

        awaitUntil("the slice back: the count holds what was admitted",
                () -> remaining(a, "live", request) == 100 - admitted);
        long before = calls.getAsLong();
        assertThat(decideNow(b.engine, b.engine.ledger("live"), onB).allowed()).isTrue();
        assertThat(calls.getAsLong() - before).as("the next request asks the store").isPositive();
    }

    /** A partition seen once a lease takes no slice: one store call per request, as exact. */
    public void aPartitionSeenOnceALeaseCostsOneStoreCallARequest() throws Exception {
        Instance a = instance(0);
        Instance b = instance(1);
        LimitDeclaration hundred = limit("rare", 100, 600);
        BoundLimits onA = a.bind("Rare.all()", hundred);
        BoundLimits onB = b.bind("Rare.all()", hundred);
        long before = calls.getAsLong();
        for (int i = 0; i < 10; i++) {
            Instance at = i % 2 == 0 ? a : b;
            assertThat(decideNow(at.engine, at.engine.ledger("rare"), i % 2 == 0 ? onA : onB).allowed()).isTrue();
            clock.advanceMillis(LEASE_MILLIS);
        }
        assertThat(calls.getAsLong() - before).as("store calls of 10 requests, one a lease").isEqualTo(10);
    }

    // ------------------------------------------------------------------------------------------------

    /** One application instance: its store, and its engine on it. */
    private record Instance(RateLimitStore store, RateLimitEngine engine) {
        BoundLimits bind(String where, LimitDeclaration limit) {
            return engine.binder().bind(beanMethod(where, limit));
        }
    }

    /** What a burst of requests got. */
    private record Admitted(int count, int atHome, RateLimitRequest request) {
    }

    /** Instance {@code i}: an engine on a store of its own; slicing (it hears the store) before it is returned. */
    private Instance instance(int i) throws Exception {
        RateLimitStore store = stores.apply(i);
        RateLimitEngine engine = RateLimitEngine.builder(settings(Map.of()), store).clock(clock).build();
        awaitUntil("the store's announcements heard", () -> engine.guard().slicing());
        return new Instance(store, engine);
    }

    private RateLimitSettings settings(Map<String, String> more) {
        Map<String, String> values = new HashMap<>(Map.of("ratelimit.store.timeout-millis",
                Long.toString(timeout.toMillis()), "ratelimit.store.slices", "true",
                "ratelimit.store.slice-lease-millis", Long.toString(LEASE_MILLIS)));
        values.putAll(more);
        return RateLimitSettings.of(values);
    }

    /** True when a request of {@code partition} on {@code instance} is decided without a store call (and spends one). */
    private boolean atHome(Instance instance, BoundLimits limits, String partition) {
        long before = calls.getAsLong();
        decideNow(instance.engine, instance.engine.ledger(partition), limits);
        return calls.getAsLong() == before;
    }

    private int remaining(Instance instance, String partition, RateLimitRequest request) throws Exception {
        CountState state = instance.store.inspect(partition, request).toCompletableFuture()
                .get(timeout.toSeconds(), TimeUnit.SECONDS);
        return state.remaining();
    }

    private Admitted concurrently(int requests, String partition, List<Instance> instances, List<BoundLimits> limits)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            return concurrently(pool, requests, partition, instances, limits);
        } finally {
            pool.shutdownNow();
        }
    }

    /** {@code requests} requests of {@code partition} at once, request {@code i} on instance {@code i % n}. */
    private Admitted concurrently(ExecutorService pool, int requests, String partition, List<Instance> instances,
                                  List<BoundLimits> limits) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<RateLimitDecision>> answers = new ArrayList<>();
        long before = calls.getAsLong();
        for (int i = 0; i < requests; i++) {
            RateLimitEngine engine = instances.get(i % instances.size()).engine;
            BoundLimits bound = limits.get(i % instances.size());
            answers.add(pool.submit(() -> {
                start.await();
                return decideNow(engine, engine.ledger(partition), bound);
            }));
        }
        start.countDown();
        int admitted = 0;
        RateLimitRequest request = null;
        for (Future<RateLimitDecision> answer : answers) {
            RateLimitDecision d = answer.get(2 * awaitSeconds, TimeUnit.SECONDS);
            admitted += d.allowed() ? 1 : 0;
            request = d.request();
        }
        int atHome = (int) Math.max(0, requests - (calls.getAsLong() - before));
        return new Admitted(admitted, atHome, request);
    }

    private void awaitUntil(String what, java.util.concurrent.Callable<Boolean> condition) throws Exception {
        Await.until(what, awaitSeconds, condition);
    }
}
