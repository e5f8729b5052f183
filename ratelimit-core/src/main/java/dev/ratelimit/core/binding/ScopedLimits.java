package dev.ratelimit.core.binding;

import dev.ratelimit.core.RateLimitScope;

/**
 * A resource method's limits as deployed, one call site per scope: each decided by the Jakarta REST filter of its
 * scope, at most once per request. Made by {@link LimitBinder#bindResourceMethod}. Immutable.
 *
 * @param transport    the limits that decide after authentication, before authorization
 * @param principal    the limits that decide after authorization
 * @param atInvocation true when the method has a {@code @RateLimitKey} parameter: its limits counted per argument are
 *                     decided by the CDI interceptor when it is invoked ({@link LimitBinder#bindAtInvocation}), so the
 *                     interceptor must recognise it as the request's resource method
 */
public record ScopedLimits(BoundLimits transport, BoundLimits principal, boolean atInvocation) {

    /** The limits of one scope. */
    public BoundLimits of(RateLimitScope scope) {
        return scope == RateLimitScope.TRANSPORT ? transport : principal;
    }

    /**
     * True when a limit of either scope may apply to some caller, or the interceptor decides some: the method's
     * requests need deciding.
     */
    public boolean decides() {
        return !transport.isEmpty() || !principal.isEmpty() || atInvocation;
    }

    /**
     * The effective limits for the start-up line: one scope's alone, else both named:
     * {@code TRANSPORT ["default" 3/60s], PRINCIPAL ["delete" 2/60s]}.
     */
    public String describe() {
        if (principal.isEmpty()) {
            return transport.describe();
        }
        if (transport.isEmpty()) {
            return "PRINCIPAL " + principal.describe();
        }
        return "TRANSPORT " + transport.describe() + ", PRINCIPAL " + principal.describe();
    }
}
