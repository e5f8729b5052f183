package dev.ratelimit.core;

import java.net.InetAddress;
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

    /**
     * The client of an HTTP request (docs/partitions.md, "How the client is found"): the peer, or the client that
     * trusted proxies ({@code ratelimit.trusted-proxies}) forwarded for, before {@code ratelimit.ipv4-prefix} /
     * {@code ratelimit.ipv6-prefix} apply; an IPv4-mapped address as IPv4. Resolved once per request, when first
     * asked for; never a name lookup. Null outside an HTTP request, or when the runtime cannot tell the peer.
     * (A default method, so that callers written before it still compile.)
     */
    default InetAddress clientAddress() {
        return null;
    }

    /**
     * The connection's peer as the runtime reports it (after the runtime's own forwarding, such as Quarkus'
     * {@code quarkus.http.proxy.*} or Open Liberty's {@code <remoteIp>}). Null outside an HTTP request, or when
     * the runtime cannot tell.
     */
    default InetAddress peerAddress() {
        return null;
    }
}
