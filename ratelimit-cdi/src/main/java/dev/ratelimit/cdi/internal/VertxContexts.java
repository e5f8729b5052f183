package dev.ratelimit.cdi.internal;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.util.concurrent.Executor;

/** The current Vert.x context as an executor. Loaded only when Vert.x is on the class path ({@link Resumption}). */
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
}
