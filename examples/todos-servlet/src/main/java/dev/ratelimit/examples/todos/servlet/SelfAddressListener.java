package dev.ratelimit.examples.todos.servlet;

import dev.ratelimit.examples.todos.SelfAddress;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletRequestEvent;
import jakarta.servlet.ServletRequestListener;
import jakarta.servlet.annotation.WebListener;
import java.net.URI;
import java.net.URISyntaxException;

/**
 * Tells {@link SelfAddress} where this server is, so that the example's partner (its own {@code POST /partner/inbox})
 * is reached on the port the servlet container listens on, which the application cannot read from its configuration:
 * one the system chose (Open Liberty's {@code httpPort} 0) or the first free one of a range (Payara Micro's
 * {@code --autobindhttp}). Learnt from the first request, from the local address and port of its connection: facts of
 * the socket, not the {@code Host} header, which a client chooses. A share is always made inside a request, so the
 * address is known before the partner is first called. A {@code @WebListener} in a library of {@code WEB-INF/lib}:
 * the container finds it there.
 */
@WebListener
public class SelfAddressListener implements ServletRequestListener {

    @Override
    public void requestInitialized(ServletRequestEvent event) {
        if (SelfAddress.known()) {
            return;
        }
        ServletRequest request = event.getServletRequest();
        String host = request.getLocalAddr();
        int zone = host.indexOf('%'); // an IPv6 scope: not part of a URI
        try {
            SelfAddress.learn(new URI(request.getScheme(), null, zone < 0 ? host : host.substring(0, zone),
                    request.getLocalPort(), event.getServletContext().getContextPath() + "/", null, null));
        } catch (URISyntaxException e) {
            // not an address a URI can hold: the partner stays unknown (a share answers 502), as without this listener
        }
    }
}
