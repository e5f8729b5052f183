package dev.ratelimit.examples.todos;

import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.client.ClientRequestContext;
import jakarta.ws.rs.client.ClientRequestFilter;
import jakarta.ws.rs.core.UriBuilder;
import java.net.URI;
import java.util.concurrent.atomic.AtomicReference;

/**
 * "This server" as the partner's URL: a client filter of {@link PartnerClient} (registered on the interface, not a
 * server provider) that sends a request addressed to the placeholder {@code http://self.invalid} to this server
 * instead, so that the example shares with its own {@code POST /partner/inbox} on any port, random ones included. The
 * embedded, the Open Liberty and the Payara Micro modules set {@code partner/mp-rest/url} to the placeholder; any other
 * URL (a system property, the environment) is left alone.
 *
 * <p>Where this server is reached is told by the runtime's module from a fact, never guessed from a request's
 * {@code Host} header (which a client chooses, and which would let it send the shares to a host of its choosing): the
 * port the embedded server bound ({@code TodosServer}), the local address and port of a request's connection (Open
 * Liberty and Payara Micro, a servlet listener). Quarkus sets the URL by configuration instead, from the port it
 * bound. Until it is told, a call to the placeholder fails (the share answers 502); {@code .invalid} never
 * resolves (RFC 2606), so the placeholder itself can reach nobody.
 *
 * <p>Thread-safety: the address is one atomic reference, read on whatever thread the client sends from (a call that
 * waited for its permit goes from a timer's thread). One per class loader: two embedded servers in one JVM share it.
 */
public final class SelfAddress implements ClientRequestFilter {

    /** The host of the placeholder URL ({@code http://self.invalid}). */
    public static final String PLACEHOLDER_HOST = "self.invalid";

    private static final AtomicReference<URI> SELF = new AtomicReference<>();

    /** This server's base URI ({@code http://127.0.0.1:8080/}, with its context root), as the runtime knows it. */
    public static void learn(URI base) {
        SELF.set(base);
    }

    /** Whether this server's base URI is known. */
    public static boolean known() {
        return SELF.get() != null;
    }

    /** Forgets {@code base} (a server that stopped), unless another server has told its own since. */
    public static void forget(URI base) {
        SELF.compareAndSet(base, null);
    }

    @Override
    public void filter(ClientRequestContext request) {
        URI uri = request.getUri();
        if (!PLACEHOLDER_HOST.equalsIgnoreCase(uri.getHost())) {
            return;
        }
        URI self = SELF.get();
        if (self == null) {
            throw new ProcessingException("the partner's URL is " + uri.getScheme() + "://" + PLACEHOLDER_HOST
                    + " (this server), and this server's address is not known yet; set partner/mp-rest/url");
        }
        request.setUri(UriBuilder.fromUri(self).path(uri.getRawPath()).replaceQuery(uri.getRawQuery()).build());
    }
}
