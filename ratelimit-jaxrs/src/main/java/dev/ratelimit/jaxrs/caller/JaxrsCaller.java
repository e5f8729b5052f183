package dev.ratelimit.jaxrs.caller;

import dev.ratelimit.core.address.AddressedCaller;
import dev.ratelimit.core.address.ClientAddresses;
import dev.ratelimit.core.address.ResolvedClient;
import jakarta.ws.rs.core.SecurityContext;
import java.security.Principal;
import java.util.List;

/**
 * The caller of one Jakarta REST request: the principal and roles of its {@code SecurityContext}, its headers, and
 * its client address, found from the connection's peer and the forwarded headers the first time anything asks
 * (most requests are partitioned by key or principal and never do), then kept. A runtime's adapter says where its
 * request keeps these ({@link #securityContext}, {@link #header}, {@link #peer}, {@link #clientAddresses}).
 *
 * <p>One request at a time, whose parts may run on different threads one after the other (the runtime hands the
 * request over with a happens-before edge): the client is kept in a plain field.
 */
public abstract class JaxrsCaller implements AddressedCaller {

    private ResolvedClient client;

    protected JaxrsCaller() {
    }

    /** The request's security context, or null when the runtime has none for it. */
    protected abstract SecurityContext securityContext();

    /** The connection's peer address as text, or null when the runtime cannot tell it. */
    protected abstract String peer();

    /** How the application finds a client from its peer and the forwarded headers ({@code ratelimit.trusted-proxies}...). */
    protected abstract ClientAddresses clientAddresses();

    @Override
    public final Principal principal() {
        SecurityContext security = securityContext();
        return security == null ? null : security.getUserPrincipal();
    }

    @Override
    public final boolean isUserInRole(String role) {
        SecurityContext security = securityContext();
        return security != null && security.getUserPrincipal() != null && security.isUserInRole(role);
    }

    @Override
    public final ResolvedClient resolvedClient() {
        ResolvedClient resolved = client;
        if (resolved == null) {
            resolved = clientAddresses().resolve(peer(), this);
            client = resolved;
        }
        return resolved;
    }

    /**
     * A header's values as one value, as {@code ContainerRequestContext.getHeaderString} gives them: null for none,
     * the values of a repeated header joined with {@code ','}.
     *
     * @param values the header's values, or null for none
     */
    public static String joined(List<String> values) {
        return switch (values == null ? 0 : values.size()) {
            case 0 -> null;
            case 1 -> values.get(0);
            default -> String.join(",", values);
        };
    }
}
