package dev.ratelimit.internal.engine;

import dev.ratelimit.RateLimitDecision;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

/** Waiting for a store's answer where the caller cannot continue without it. */
public final class Decisions {

    private Decisions() {
    }

    /**
     * The decision of a stage: at once when it is complete (the in-process store), else waiting for it
     * (a remote store completes or fails it within its own timeout).
     *
     * @throws StoreFailedException when the store failed
     */
    public static RateLimitDecision await(CompletionStage<RateLimitDecision> stage) {
        CompletableFuture<RateLimitDecision> future = stage.toCompletableFuture();
        try {
            return future.get();
        } catch (ExecutionException | CompletionException e) {
            throw new StoreFailedException(e.getCause() == null ? e : e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreFailedException(e);
        }
    }

    /** The store could not decide. */
    public static final class StoreFailedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public StoreFailedException(Throwable cause) {
            super("the rate limit store failed: " + cause, cause);
        }

        /** @param what the limits and the method the store failed to decide, for the log */
        public StoreFailedException(String what, Throwable cause) {
            super("the rate limit store failed to decide " + what + ": " + cause, cause);
        }
    }
}
