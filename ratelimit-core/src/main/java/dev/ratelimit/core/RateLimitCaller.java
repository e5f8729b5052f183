package dev.ratelimit.core;

import java.security.Principal;

/**
 * What is known of the caller of a limited request or method, for the {@link RateLimitPartitioner} and
 * the {@link RateLimitPlanResolver}. Valid during the call only.
 */
public interface RateLimitCaller {

    /** The authenticated caller, or null. */
    Principal principal();

    /**
     * The first value of a request header (name matched without regard to case), or null when absent
     * or outside an HTTP request.
     */
    String header(String name);

    /**
     * Whether the authenticated caller has the role: the Jakarta REST {@code SecurityContext} inside a
     * request (backed by the runtime's security, MicroProfile JWT groups included); false without an
     * authenticated caller or outside a request.
     */
    boolean isUserInRole(String role);
}
