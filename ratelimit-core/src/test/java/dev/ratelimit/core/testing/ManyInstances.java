package dev.ratelimit.core.testing;

import static dev.ratelimit.core.testing.EngineFixtures.decideNow;

import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Concurrent requests spread over the engines of several instances, for the stores that count across instances: how
 * many are admitted at once, and give-backs racing acquires.
 */
public final class ManyInstances {

    private ManyInstances() {
    }

    /**
     * Decides {@code requests} requests of {@code partition} at once (16 threads, released together), request
     * {@code i} on {@code engines.get(i % n)} with {@code limits.get(i % n)}, the same limits bound on each engine.
     *
     * @param seconds how long each request may take before the test fails
     * @return how many were allowed
     */
    public static int admittedConcurrently(int requests, String partition, long seconds, List<RateLimitEngine> engines,
                                           List<BoundLimits> limits) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(16);
        List<Future<Boolean>> answers = new ArrayList<>();
        try {
            for (int i = 0; i < requests; i++) {
                RateLimitEngine engine = engines.get(i % engines.size());
                BoundLimits bound = limits.get(i % engines.size());
                answers.add(pool.submit(() -> {
                    start.await();
                    return decideNow(engine, engine.ledger(partition), bound).allowed();
                }));
            }
            start.countDown();
            int admitted = 0;
            for (Future<Boolean> answer : answers) {
                admitted += answer.get(seconds, TimeUnit.SECONDS) ? 1 : 0;
            }
            return admitted;
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * What {@link #givingBackWhileAcquiring} saw.
     *
     * @param admitted  requests allowed
     * @param refused   requests refused
     * @param givenBack admitted requests whose permits were given back (through the engine, as a refused request or a
     *                  success of a limit that counts only failures gives them back)
     * @param mostHeld  the most permits held at once by requests admitted and not yet given back
     */
    public record Race(int admitted, int refused, int givenBack, int mostHeld) {

        /** Permits still held: admitted and never given back. */
        public int held() {
            return admitted - givenBack;
        }
    }

    /**
     * Acquires racing give-backs: {@code threads} threads (thread {@code t} on {@code engines.get(t % n)} with
     * {@code limits.get(t % n)}), released together, each deciding {@code calls} requests of {@code partition}; a thread
     * holds the requests it was admitted and gives the oldest back ({@link RateLimitEngine#giveBack}) once it holds
     * more than {@code keep}, and whenever a request of its own is refused, so that give-backs of each instance race
     * acquires of every instance, refused ones among them. The permits
     * held are counted as the store must see them at least: from the admission's answer until the give-back is sent.
     *
     * @param seconds how long the whole race may take before the test fails
     */
    public static Race givingBackWhileAcquiring(List<RateLimitEngine> engines, List<BoundLimits> limits, String partition,
                                                int threads, int calls, int keep, long seconds) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicInteger admitted = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger givenBack = new AtomicInteger();
        AtomicInteger held = new AtomicInteger();
        AtomicInteger mostHeld = new AtomicInteger();
        List<Future<?>> done = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                RateLimitEngine engine = engines.get(t % engines.size());
                BoundLimits bound = limits.get(t % engines.size());
                done.add(pool.submit(() -> {
                    start.await();
                    Deque<RequestLedger> holding = new ArrayDeque<>();
                    for (int i = 0; i < calls; i++) {
                        RequestLedger ledger = engine.ledger(partition);
                        if (decideNow(engine, ledger, bound).allowed()) {
                            admitted.incrementAndGet();
                            mostHeld.accumulateAndGet(held.incrementAndGet(), Math::max);
                            holding.addLast(ledger);
                            if (holding.size() <= keep) {
                                continue;
                            }
                        } else {
                            refused.incrementAndGet();
                            if (holding.isEmpty()) {
                                continue;
                            }
                        }
                        held.decrementAndGet(); // before it is sent: never counted held longer than the store holds it
                        givenBack.incrementAndGet();
                        engine.giveBack(holding.removeFirst());
                    }
                    return null;
                }));
            }
            start.countDown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            for (Future<?> thread : done) {
                thread.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
            return new Race(admitted.get(), refused.get(), givenBack.get(), mostHeld.get());
        } finally {
            pool.shutdownNow();
        }
    }
}
