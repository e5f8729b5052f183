package dev.ratelimit.examples.todos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.grizzly.http.server.HttpServerFilter;
import org.glassfish.grizzly.http.server.HttpServerProbe;
import org.glassfish.grizzly.http.server.NetworkListener;
import org.glassfish.grizzly.http.server.Request;
import org.glassfish.grizzly.http.util.FastHttpDateFormat;
import org.glassfish.grizzly.http.util.Header;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpServerFactory;
import org.glassfish.jersey.server.ResourceConfig;

/**
 * Jersey on Grizzly's HTTP server, set up as the embedded example runs it ({@link TodosServer}; the
 * benchmarks run their "ratelimit off" variant on the same set-up):
 * <ul>
 * <li>TCP_NODELAY on every accepted connection (Grizzly's default, set explicitly): no piece of a response
 * waits for the ACK of the piece before (Nagle's algorithm against a client's delayed ACK: ~40 ms for each
 * response written in more than one piece, on a kept-alive connection);</li>
 * <li>a kept-alive connection serves any number of requests (Grizzly's default closes it after 256) and is
 * closed after 30 s idle;</li>
 * <li>a {@code Date} header on every response: Grizzly 4 drops the one it adds itself (it marks the
 * headers as trailers when the response commits, before its codec adds {@code Date}, and {@code Date} is
 * not allowed in trailers);</li>
 * <li>a client that disconnects early is a FINE line, not a stack trace per request
 * ({@link ClientDisconnects}).</li>
 * </ul>
 */
public final class EmbeddedHttpServer {

    /** The name {@link GrizzlyHttpServerFactory} gives its one listener. */
    private static final String LISTENER = "grizzly";

    private EmbeddedHttpServer() {
    }

    /**
     * Jersey serving {@code config} at {@code http://host:port/}, configured, not started. {@code host} is a name or
     * an address, an IPv6 literal with or without brackets ({@code ::1}, {@code [::1]}): the server listens on that
     * address alone, on that port.
     *
     * @throws IllegalArgumentException naming the host and the port when they make no URI, or one without a host
     */
    public static HttpServer create(String host, int port, ResourceConfig config) {
        ClientDisconnects.quiet();
        URI uri;
        try {
            uri = URI.create("http://" + uriHost(host) + ":" + port + "/");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("host \"" + host + "\" and port " + port + " make no HTTP address: "
                    + e.getMessage(), e);
        }
        // Without a host, or without a port, Jersey would listen on every interface, or on port 80: never guess
        if (uri.getHost() == null || uri.getPort() != port) {
            throw new IllegalArgumentException("host \"" + host + "\" and port " + port + " make no HTTP address: "
                    + uri);
        }
        HttpServer http = GrizzlyHttpServerFactory.createHttpServer(uri, config, false);
        NetworkListener listener = http.getListener(LISTENER);
        listener.getTransport().setTcpNoDelay(true);
        listener.getKeepAlive().setMaxRequestsCount(-1);
        http.getServerConfiguration().getMonitoringConfig().getWebServerConfig().addProbes(new DateHeader());
        return http;
    }

    /** {@code host} as a URI writes it: an IPv6 literal in brackets ({@code ::1} is {@code [::1]}). */
    public static String uriHost(String host) {
        return host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    /** {@code host} without the brackets of an IPv6 literal. */
    static String bare(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    /**
     * Starts {@code http} and returns the port it listens on (the one the system chose for port 0).
     *
     * @throws UncheckedIOException when it cannot listen, after releasing what it started
     */
    public static int start(HttpServer http) {
        try {
            http.start();
        } catch (IOException e) {
            http.shutdownNow();
            throw new UncheckedIOException("cannot listen: " + e.getMessage(), e);
        }
        return http.getListener(LISTENER).getPort();
    }

    /**
     * Closes every connection at once, requests in flight included (as the JDK server's {@code stop(0)} did),
     * and tears Jersey down. (Grizzly's graceful {@code shutdown(grace)} logs a WARNING each time it runs.)
     */
    public static void stop(HttpServer http) {
        http.shutdownNow();
    }

    /** Sets {@code Date} as each request arrives; Grizzly formats the current date once a second. */
    private static final class DateHeader extends HttpServerProbe.Adapter {
        @Override
        public void onRequestReceiveEvent(HttpServerFilter filter, org.glassfish.grizzly.Connection connection,
                Request request) {
            request.getResponse().setHeader(Header.Date, FastHttpDateFormat.getCurrentDate());
        }
    }
}
