package dev.ratelimit.cdi.internal;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * Where a limited asynchronous method goes on once a remote store's decision arrives: on the caller's
 * Vert.x context when it was called on one (Quarkus: the same event loop, with the request's context), so
 * that the method never runs on the store client's I/O thread; else on the thread that completed the
 * decision. Vert.x need not be on the class path: {@link VertxContexts} is loaded only when it is.
 */
final class Resumption {

    private static final boolean VERTX = OptionalClasses.present("io.vertx.core.Vertx");

    private Resumption() {
    }

    /** The caller's Vert.x context as an executor, or null (go on where the decision completes). */
    static Executor current() {
        return VERTX ? VertxContexts.current() : null;
    }

    /** A stage completing on the caller's Vert.x context once {@code nanos} have passed; null without a context. */
    static CompletionStage<Void> after(long nanos) {
        return VERTX ? VertxContexts.after(nanos) : null;
    }
}
