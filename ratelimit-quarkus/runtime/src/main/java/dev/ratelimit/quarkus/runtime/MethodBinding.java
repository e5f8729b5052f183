package dev.ratelimit.quarkus.runtime;

import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.binding.ScopedLimits;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.headers.RateLimitHeaders;
import java.lang.reflect.Method;

/**
 * One resource method's limits as bound at run-time init: the engine they were bound to, each scope's limits, and the
 * formats of its headers. Immutable but for the formats (a thread-safe cache).
 */
final class MethodBinding {

    final RateLimitEngine engine;
    final BoundLimits transport;
    final BoundLimits principal;
    /** True when a limit of either scope applies to some caller: the request needs its state. */
    final boolean decides;
    /** The Java method, only where the CDI interceptor still runs around it; else null. */
    final Method intercepted;
    final RateLimitHeaders.Formats formats = new RateLimitHeaders.Formats();

    MethodBinding(RateLimitEngine engine, ScopedLimits limits, Method intercepted) {
        this.engine = engine;
        this.transport = limits == null ? null : limits.transport();
        this.principal = limits == null ? null : limits.principal();
        this.decides = limits != null && limits.decides();
        this.intercepted = intercepted;
    }

    /**
     * A method without any limit (or every limit off, or {@code ratelimit.enabled=false}); also the binding of a
     * request that reaches a limited bean from such a method.
     */
    static MethodBinding none(RateLimitEngine engine) {
        return new MethodBinding(engine, null, null);
    }
}
