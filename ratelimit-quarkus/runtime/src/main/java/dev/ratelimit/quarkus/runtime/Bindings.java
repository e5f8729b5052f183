package dev.ratelimit.quarkus.runtime;

import dev.ratelimit.core.engine.RateLimitEngine;
import jakarta.inject.Singleton;

/**
 * Every resource method's binding, by the id its {@link ResourceMethodHandler} carries: a bean, given its bindings once
 * by {@link RateLimitRecorder} at run-time init, before the HTTP server accepts a request (the build knows the
 * resource methods only after the bean container is built, so they cannot make a bean of their own).
 *
 * <p>Thread-safe: both fields are written once, {@code none} first, and read without a lock after that.
 */
@Singleton
public class Bindings {

    private volatile MethodBinding none;
    private volatile MethodBinding[] methods;

    /** The bindings, made at run-time init. */
    void bound(RateLimitEngine engine, MethodBinding[] bound) {
        none = MethodBinding.none(engine);
        methods = bound;
    }

    /** The binding of the resource method with this id; null before run-time init. */
    MethodBinding method(int id) {
        MethodBinding[] all = methods;
        return all == null ? null : id < all.length ? all[id] : none;
    }

    /** The binding of a method no limit covers; null before run-time init. */
    MethodBinding none() {
        return none;
    }
}
