package dev.ratelimit.quarkus.runtime;

import dev.ratelimit.core.engine.BoundLimits;
import dev.ratelimit.core.headers.RateLimitHeaders;
import java.lang.reflect.Method;

/**
 * One resource method's limits as bound at run-time init: each scope's, and the formats of its headers. Immutable
 * but for the formats (a thread-safe cache).
 */
final class MethodBinding {

    /** A method without any limit (or every limit off, or {@code ratelimit.enabled=false}). */
    static final MethodBinding NONE = new MethodBinding(null, null, null);

    final BoundLimits transport;
    final BoundLimits principal;
    /** True when a limit of either scope applies to some caller: the request needs its state. */
    final boolean decides;
    /** The Java method, only where the CDI interceptor still runs around it; else null. */
    final Method intercepted;
    final RateLimitHeaders.Formats formats = new RateLimitHeaders.Formats();

    MethodBinding(BoundLimits transport, BoundLimits principal, Method intercepted) {
        this.transport = transport;
        this.principal = principal;
        this.decides = (transport != null && !transport.isEmpty()) || (principal != null && !principal.isEmpty());
        this.intercepted = intercepted;
    }
}
