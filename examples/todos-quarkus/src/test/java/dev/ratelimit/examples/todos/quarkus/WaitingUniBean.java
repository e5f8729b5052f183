package dev.ratelimit.examples.todos.quarkus;

import dev.ratelimit.RateLimit;
import dev.ratelimit.core.RateLimitPer;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * A plain CDI bean whose limited methods return a Mutiny {@code Uni} and a {@code Multi} and may wait for their permits
 * ({@code maxWaitMillis}): one call a second each, for the whole application, a call over it waiting up to 3 s. The method says where and when it ran, which
 * is once its permit exists (test only: not part of the example).
 */
@ApplicationScoped
public class WaitingUniBean {

    /** Where the method ran: its Vert.x context, its thread, and when ({@code System.nanoTime}). */
    public record Ran(Context context, String thread, long nanos) {
    }

    @RateLimit(permitLimit = 1, windowSeconds = 1, name = "waiting-uni", per = RateLimitPer.APPLICATION,
            maxWaitMillis = 3000)
    public Uni<Ran> call() {
        Ran ran = new Ran(Vertx.currentContext(), Thread.currentThread().getName(), System.nanoTime());
        return Uni.createFrom().item(ran);
    }

    /** The same as a Mutiny {@code Multi} of two items, with a limit of its own. */
    @RateLimit(permitLimit = 1, windowSeconds = 1, name = "waiting-multi", per = RateLimitPer.APPLICATION,
            maxWaitMillis = 3000)
    public Multi<Ran> stream() {
        Ran ran = new Ran(Vertx.currentContext(), Thread.currentThread().getName(), System.nanoTime());
        return Multi.createFrom().items(ran, ran);
    }
}
