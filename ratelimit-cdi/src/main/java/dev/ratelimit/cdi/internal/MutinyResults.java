package dev.ratelimit.cdi.internal;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitExceededException;
import io.smallrye.mutiny.Uni;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * A limited method that returns a Mutiny {@code Uni}: the decision is made when the {@code Uni} is
 * subscribed to (Mutiny is lazy), chained, never awaited. Loaded only when such a method exists, so Mutiny
 * need not be on the class path otherwise; no Mutiny type appears in a signature here.
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
        return Uni.createFrom().deferred(() -> {
            Uni<RateLimitDecision> decision = Uni.createFrom().completionStage(decide);
            if (resume != null) {
                decision = decision.emitOn(resume);
            }
            return decision.onItem().transformToUni(d -> {
                if (d != null && !d.allowed()) {
                    return Uni.createFrom().failure(new RateLimitExceededException(d));
                }
                try {
                    Object result = proceed.call();
                    return result == null ? Uni.createFrom().nullItem() : (Uni<Object>) result;
                } catch (Exception e) {
                    return Uni.createFrom().failure(e);
                }
            });
        });
    }
}
