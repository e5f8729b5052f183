package dev.ratelimit.cdi.internal;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitExceededException;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * A limited method that returns a Mutiny {@code Uni} or {@code Multi}: the decision is made when it is subscribed
 * to (Mutiny is lazy), chained, never awaited; a call that reserved its permits is delayed until they exist without
 * holding a thread ({@link Delays#after}). Loaded only when such a method exists, so Mutiny need not be on the class
 * path otherwise; no Mutiny type appears in a signature here.
 */
final class MutinyResults {

    private MutinyResults() {
    }

    /**
     * @param decide  makes the decision (a stage that fails when the store could not decide)
     * @param proceed calls the method, which returns its {@code Uni}
     * @param resume  where to go on once a later decision arrives (the caller's Vert.x context), or null
     */
    @SuppressWarnings("unchecked")
    static Object guarded(Supplier<CompletionStage<RateLimitDecision>> decide, Callable<Object> proceed, Executor resume) {
        return Uni.createFrom().deferred(() -> allowed(decide, resume).onItem().transformToUni(ignored -> {
            try {
                Object result = proceed.call();
                return result == null ? Uni.createFrom().nullItem() : (Uni<Object>) result;
            } catch (Exception e) {
                return Uni.createFrom().failure(e);
            }
        }));
    }

    /** {@link #guarded} for a method that returns its {@code Multi}. */
    @SuppressWarnings("unchecked")
    static Object guardedMulti(Supplier<CompletionStage<RateLimitDecision>> decide, Callable<Object> proceed,
                               Executor resume) {
        return Multi.createFrom().deferred(() -> allowed(decide, resume).onItem().transformToMulti(ignored -> {
            try {
                Object result = proceed.call();
                return result == null ? Multi.createFrom().empty() : (Multi<Object>) result;
            } catch (Exception e) {
                return Multi.createFrom().failure(e);
            }
        }));
    }

    /** An item once the call may go ahead: decided, and its reserved permits there; a refusal fails it. */
    private static Uni<Boolean> allowed(Supplier<CompletionStage<RateLimitDecision>> decide, Executor resume) {
        Uni<RateLimitDecision> decision = Uni.createFrom().completionStage(decide);
        if (resume != null) {
            decision = decision.emitOn(resume);
        }
        return decision.onItem().transformToUni(d -> {
            if (d != null && !d.allowed()) {
                return Uni.createFrom().failure(new RateLimitExceededException(d));
            }
            if (d != null && d.waitNanos() > 0) {
                return Uni.createFrom().completionStage(() -> Delays.after(d.waitNanos())).replaceWith(Boolean.TRUE);
            }
            return Uni.createFrom().item(Boolean.TRUE);
        });
    }
}
