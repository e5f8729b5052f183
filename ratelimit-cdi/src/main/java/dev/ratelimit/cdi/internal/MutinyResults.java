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
     * @param decide   makes the decision (a stage that fails when the store could not decide)
     * @param proceed  calls the method, which returns its {@code Uni}
     * @param resume   where to go on once a later decision arrives (the caller's Vert.x context), or null
     * @param outcomes judges the call by its outcome (the {@code Uni}'s item: a success), or null where its request's
     *                 status does; a failure or a cancellation keeps the permits
     */
    @SuppressWarnings("unchecked")
    static Object guarded(Supplier<? extends CompletionStage<RateLimitDecision>> decide, Callable<Object> proceed,
                          Executor resume, BeanLimits.Outcomes outcomes) {
        return Uni.createFrom().deferred(() -> allowed(decide, resume).onItem().transformToUni(d -> {
            Uni<Object> result;
            try {
                Object returned = proceed.call();
                result = returned == null ? Uni.createFrom().nullItem() : (Uni<Object>) returned;
            } catch (Exception e) {
                return Uni.createFrom().failure(e);
            }
            return outcomes == null ? result : result.onItem().invoke(() -> outcomes.succeeded(d.decision()));
        }));
    }

    /** {@link #guarded} for a method that returns its {@code Multi}: its completion is a success. */
    @SuppressWarnings("unchecked")
    static Object guardedMulti(Supplier<? extends CompletionStage<RateLimitDecision>> decide, Callable<Object> proceed,
                               Executor resume, BeanLimits.Outcomes outcomes) {
        return Multi.createFrom().deferred(() -> allowed(decide, resume).onItem().transformToMulti(d -> {
            Multi<Object> result;
            try {
                Object returned = proceed.call();
                result = returned == null ? Multi.createFrom().empty() : (Multi<Object>) returned;
            } catch (Exception e) {
                return Multi.createFrom().failure(e);
            }
            return outcomes == null ? result : result.onCompletion().invoke(() -> outcomes.succeeded(d.decision()));
        }));
    }

    /** The decision (null when nothing was decided), as an item: Mutiny's items are never null. */
    private record Allowed(RateLimitDecision decision) {
    }

    /** An item once the call may go ahead: decided, and its reserved permits there; a refusal fails it. */
    private static Uni<Allowed> allowed(Supplier<? extends CompletionStage<RateLimitDecision>> decide, Executor resume) {
        Uni<RateLimitDecision> decision = Uni.createFrom().completionStage(decide);
        if (resume != null) {
            decision = decision.emitOn(resume);
        }
        return decision.onItem().transformToUni(d -> {
            if (d != null && !d.allowed()) {
                return Uni.createFrom().failure(new RateLimitExceededException(d));
            }
            Allowed allowed = new Allowed(d);
            if (d != null && d.waitNanos() > 0) {
                return Uni.createFrom().completionStage(() -> Delays.after(d.waitNanos())).replaceWith(allowed);
            }
            return Uni.createFrom().item(allowed);
        });
    }
}
