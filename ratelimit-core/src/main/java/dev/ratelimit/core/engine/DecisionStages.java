package dev.ratelimit.core.engine;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitStoreException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Reading what {@link RateLimitEngine#decide} answered, on a thread that may wait for it. */
public final class DecisionStages {

    private DecisionStages() {
    }

    /**
     * The decision (null when nothing was decided): at once when the answer is complete, else once it completes,
     * which the engine bounds by {@code ratelimit.store.timeout-millis}.
     *
     * @throws RateLimitStoreException when the store failed and the policy is {@code fail}, or the thread was
     *                                 interrupted while waiting (its interrupt status is kept)
     */
    public static RateLimitDecision join(CompletableFuture<RateLimitDecision> answer) {
        try {
            return answer.isDone() ? answer.join() : answer.get();
        } catch (CompletionException | ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new RateLimitStoreException("ratelimit: the store failed: " + cause, cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RateLimitStoreException("ratelimit: interrupted while waiting for the store", e);
        }
    }

    /** The failure a decision's stage completed with, unwrapped from the stage's wrappers. */
    public static Throwable cause(Throwable failure) {
        Throwable t = failure;
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
