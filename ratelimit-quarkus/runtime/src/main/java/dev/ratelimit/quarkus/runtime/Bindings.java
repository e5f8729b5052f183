package dev.ratelimit.quarkus.runtime;

import dev.ratelimit.core.engine.RateLimitEngine;

/**
 * What the request path reads: the engine and every resource method's binding, set once at run-time init by
 * {@link RateLimitRecorder}, before the HTTP server accepts a request (its recorder step runs before the socket
 * opens), and read without a lock after that (the server's start publishes them to its threads).
 */
final class Bindings {

    private static final MethodBinding[] NONE = new MethodBinding[0];

    static RateLimitEngine engine;
    static MethodBinding[] methods = NONE;

    private Bindings() {
    }

    /** The binding of the resource method with this id; {@link MethodBinding#NONE} before run-time init. */
    static MethodBinding method(int id) {
        MethodBinding[] all = methods;
        return id < all.length ? all[id] : MethodBinding.NONE;
    }

    static void set(RateLimitEngine boundEngine, MethodBinding[] bound) {
        engine = boundEngine;
        methods = bound;
    }
}
