package dev.ratelimit.examples.todos.quarkus;

import dev.ratelimit.RateLimit;
import dev.ratelimit.core.RateLimitPer;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * A plain CDI bean whose limited method returns a Mutiny {@code Uni} and may wait for its permit (SPEC 20): one call a
 * second for the whole application, a call over it waiting up to 3 s. The method says where and when it ran, which
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
}
