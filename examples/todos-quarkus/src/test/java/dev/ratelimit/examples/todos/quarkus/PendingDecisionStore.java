package dev.ratelimit.examples.todos.quarkus;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.interceptor.Interceptor;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Behaves like a remote store for the partitions of keys that start with {@code slow-}: it answers
 * {@value #DELAY_MILLIS} ms later, from another thread. While the answer is still pending, it asks the thread
 * that called {@link #acquire} (when that is an event-loop thread) to run a probe task, and records how long
 * the probe waited: an event loop that nothing blocks runs it within milliseconds, one that waits for the
 * answer cannot run it before the answer is there (the probe gives up after {@value #PROBE_TIMEOUT_MILLIS} ms,
 * and then the answer is given anyway). {@code -fail} keys get a failed answer. Every other partition is
 * decided at once, in process.
 *
 * <p>What it saw is recorded per partition ({@link #observed}), so that each test reads what its own
 * request did, never a value left over by another test.
 *
 * <p>An application priority, so that it also replaces ratelimit-redis' producer (on this module's test class
 * path; the Redis tests' profile leaves this store out).
 */
@Alternative
@Priority(Interceptor.Priority.APPLICATION)
@ApplicationScoped
public class PendingDecisionStore implements RateLimitStore {

    static final long DELAY_MILLIS = 200;
    static final long PROBE_TIMEOUT_MILLIS = 1_000;

    /**
     * What one pending decision saw.
     *
     * @param askingThread   the thread that called {@link #acquire}
     * @param onEventLoop    whether that thread is a Vert.x event-loop thread
     * @param probeThread    the thread the probe ran on; null when it did not run in time (or was not sent)
     * @param probeLagMillis how long the probe waited to run, while the answer was pending; -1 when it did not run
     */
    record Observation(String askingThread, boolean onEventLoop, String probeThread, long probeLagMillis) {
    }

    private static final Map<String, Observation> OBSERVED = new ConcurrentHashMap<>();

    /** What the pending decision of {@code partition} saw; null when there was none (yet). */
    static Observation observed(String partition) {
        return OBSERVED.get(partition);
    }

    private final InProcessRateLimitStore delegate = new InProcessRateLimitStore(10_000, System::nanoTime);

    @Override
    public Object bind(CountKey key) {
        return delegate.bind(key);
    }

    @Override
    public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
        CompletionStage<RateLimitDecision> decided = delegate.acquire(partition, request, multiple);
        if (!partition.contains(":slow-")) {
            return decided;
        }
        Thread asking = Thread.currentThread();
        Context context = Vertx.currentContext();
        boolean onEventLoop = Context.isOnEventLoopThread();
        CompletableFuture<RateLimitDecision> answer = new CompletableFuture<>();
        CompletableFuture.delayedExecutor(DELAY_MILLIS, TimeUnit.MILLISECONDS).execute(() -> {
            String[] probeThread = new String[1];
            long lag = onEventLoop && context != null ? probe(context, probeThread) : -1;
            OBSERVED.put(partition, new Observation(asking.getName(), onEventLoop, probeThread[0], lag));
            RateLimitDecision decision = decided.toCompletableFuture().join();
            if (partition.endsWith("-fail")) {
                delegate.release(decision);
                answer.completeExceptionally(new IllegalStateException("the test store is down"));
            } else {
                answer.complete(decision);
            }
        });
        return answer;
    }

    /** Runs a task on {@code context}'s event loop; returns how long it waited to run, or -1 when it did not in time. */
    private static long probe(Context context, String[] ranOn) {
        CountDownLatch ran = new CountDownLatch(1);
        long submitted = System.nanoTime();
        long[] started = new long[1];
        context.runOnContext(ignored -> {
            started[0] = System.nanoTime();
            ranOn[0] = Thread.currentThread().getName();
            ran.countDown();
        });
        try {
            return ran.await(PROBE_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
                    ? TimeUnit.NANOSECONDS.toMillis(started[0] - submitted) : -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    @Override
    public CompletionStage<Void> release(RateLimitDecision decision) {
        return delegate.release(decision);
    }

    @Override
    public String storeName() {
        return "pending-decision-test-store";
    }
}
