package dev.ratelimit.examples.todos.quarkus;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.store.InProcessRateLimitStore;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.interceptor.Interceptor;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Behaves like a remote store for the partitions of keys that start with {@code slow-}: it answers
 * 200 ms later, from another thread. Before answering it checks that the thread that asked, when it is
 * an event-loop thread, is free to run other work meanwhile, i.e. that nothing waits on it for the answer.
 * {@code -fail} keys get a failed answer. Every other partition is decided at once, in process.
 * An application priority, so that it also replaces ratelimit-redis' producer (on this module's test class
 * path; RedisOnQuarkusTest leaves this store out).
 */
@Alternative
@Priority(Interceptor.Priority.APPLICATION)
@ApplicationScoped
public class PendingDecisionStore implements RateLimitStore {

    /** What the last pending decision saw; read by the test after the response arrived. */
    static volatile Boolean askedOnEventLoop;
    static volatile Boolean eventLoopStayedFree;

    private final InProcessRateLimitStore delegate = new InProcessRateLimitStore(10_000, System::nanoTime);

    @Override
    public CompletionStage<RateLimitDecision> acquire(String partition, List<RateLimitPolicy> policies) {
        CompletionStage<RateLimitDecision> decided = delegate.acquire(partition, policies);
        if (!partition.contains(":slow-")) {
            return decided;
        }
        Context asking = Vertx.currentContext();
        boolean onEventLoop = Context.isOnEventLoopThread();
        CompletableFuture<RateLimitDecision> answer = new CompletableFuture<>();
        CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS).execute(() -> {
            askedOnEventLoop = onEventLoop;
            eventLoopStayedFree = !onEventLoop || runsMeanwhile(asking);
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

    private static boolean runsMeanwhile(Context context) {
        CountDownLatch ran = new CountDownLatch(1);
        context.runOnContext(ignored -> ran.countDown());
        try {
            return ran.await(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public void release(RateLimitDecision decision) {
        delegate.release(decision);
    }
}
