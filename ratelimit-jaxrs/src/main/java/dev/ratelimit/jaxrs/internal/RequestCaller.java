package dev.ratelimit.jaxrs.internal;

import dev.ratelimit.core.address.ClientAddresses;
import dev.ratelimit.jaxrs.caller.JaxrsCaller;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.SecurityContext;

/**
 * The caller as the library's Jakarta REST filters see it: the request context's {@code SecurityContext} and
 * headers ({@link RequestHeaders}), and the peer as the runtime reports it ({@link PeerAddresses}). Used by the
 * request's own thread.
 */
final class RequestCaller extends JaxrsCaller {

    private final ContainerRequestContext request;
    private final ClientAddresses addresses;

    RequestCaller(ContainerRequestContext request, ClientAddresses addresses) {
        this.request = request;
        this.addresses = addresses;
    }

    @Override
    public String header(String name) {
        return RequestHeaders.get(request, name);
    }

    @Override
    protected SecurityContext securityContext() {
        return request.getSecurityContext();
    }

    @Override
    protected String peer() {
        return PeerAddresses.of(request);
    }

    @Override
    protected ClientAddresses clientAddresses() {
        return addresses;
    }
}
