package dev.ratelimit.cdi.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * How an asynchronous call that reserved its permits (a limit that waits) waits for the instant they exist: it is
 * delayed without holding a thread, and goes on on the caller's Vert.x context where there is one (a Vert.x timer:
 * Quarkus), else on the common pool (the JDK's one delay scheduler thread times every wait). Never early. A blocking
 * call sleeps instead ({@link dev.ratelimit.core.engine.WaitingCalls}).
 */
final class Delays {

    private Delays() {
    }

    /** A stage that completes once {@code nanos} have passed, on the caller's context where there is one. */
    static CompletionStage<Void> after(long nanos) {
        CompletionStage<Void> onContext = Resumption.after(nanos);
        if (onContext != null) {
            return onContext;
        }
        return CompletableFuture.runAsync(() -> { }, CompletableFuture.delayedExecutor(nanos, TimeUnit.NANOSECONDS));
    }
}
