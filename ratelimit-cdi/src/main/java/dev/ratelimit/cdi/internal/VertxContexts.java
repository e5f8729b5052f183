package dev.ratelimit.cdi.internal;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * The current Vert.x context as an executor, and its timers. Loaded only when Vert.x is on the class path
 * ({@link Resumption}).
 */
final class VertxContexts {

    private VertxContexts() {
    }

    static Executor current() {
        Context context = Vertx.currentContext();
        if (context == null) {
            return null;
        }
        return task -> context.runOnContext(ignored -> task.run());
    }

    /**
     * A stage completing on the current context once {@code nanos} have passed (a Vert.x timer, in whole
     * milliseconds rounded up: never early); null outside a context.
     */
    static CompletionStage<Void> after(long nanos) {
        Context context = Vertx.currentContext();
        if (context == null) {
            return null;
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        long millis = Math.max(1, (nanos + 999_999) / 1_000_000);
        context.owner().setTimer(millis, id -> context.runOnContext(ignored -> done.complete(null)));
        return done;
    }
}
