package dev.ratelimit.jaxrs.internal;

import dev.ratelimit.core.address.AddressedCaller;
import dev.ratelimit.core.address.ClientAddresses;
import dev.ratelimit.core.address.ResolvedClient;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.SecurityContext;
import java.security.Principal;

/**
 * The caller as Jakarta REST sees it: the request's {@code SecurityContext} and headers ({@link RequestHeaders}),
 * and its client address (SPEC 18), found from the peer ({@link PeerAddresses}) and the forwarded headers the
 * first time anything asks (most requests are partitioned by key or principal and never do), then kept. Used by
 * the request's own thread.
 */
final class RequestCaller implements AddressedCaller {

    private final ContainerRequestContext request;
    private final ClientAddresses addresses;
    private ResolvedClient client;

    RequestCaller(ContainerRequestContext request, ClientAddresses addresses) {
        this.request = request;
        this.addresses = addresses;
    }

    @Override
    public Principal principal() {
        SecurityContext security = request.getSecurityContext();
        return security == null ? null : security.getUserPrincipal();
    }

    @Override
    public String header(String name) {
        return RequestHeaders.get(request, name);
    }

    @Override
    public boolean isUserInRole(String role) {
        SecurityContext security = request.getSecurityContext();
        return security != null && security.getUserPrincipal() != null && security.isUserInRole(role);
    }

    @Override
    public ResolvedClient resolvedClient() {
        ResolvedClient resolved = client;
        if (resolved == null) {
            resolved = addresses.resolve(PeerAddresses.of(request), this);
            client = resolved;
        }
        return resolved;
    }
}
