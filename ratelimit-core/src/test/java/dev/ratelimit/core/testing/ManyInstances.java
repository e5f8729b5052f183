package dev.ratelimit.core.testing;

import static dev.ratelimit.core.testing.EngineFixtures.decideNow;

import dev.ratelimit.core.engine.BoundLimits;
import dev.ratelimit.core.engine.RateLimitEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Concurrent requests spread over the engines of several instances, for the stores that count across instances. */
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
}
