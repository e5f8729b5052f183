package dev.ratelimit.examples.todos;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import dev.ratelimit.examples.todos.peer.Bucket4jLettucePeer;
import dev.ratelimit.examples.todos.peer.RoundTripFloor;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.ws.rs.ext.ContextResolver;
import java.net.URI;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.glassfish.grizzly.http.server.HttpHandlerRegistration;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.jersey.CommonProperties;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.ServerProperties;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;

/**
 * The example embedded: a Weld SE container, then Jersey on Grizzly's HTTP server, on 127.0.0.1 (or the host given:
 * that address only, an IPv6 literal included), with
 * {@link OpenApiEndpoint} at {@code /openapi} and {@link MetricsEndpoint} at {@code /metrics} (the
 * {@link MetricsRegistry} bean, which ratelimit-micrometer records into) on the same server, beside Jersey.
 * How the server is set up (TCP_NODELAY, keep-alive, ...): {@link EmbeddedHttpServer}.
 *
 * <p>Jersey scans exactly two packages, {@code dev.ratelimit.jaxrs} (with its subpackages: the library's
 * providers) and {@code dev.ratelimit.examples.todos} (without subpackages), so that test classes
 * elsewhere on the class path are never picked up. The application class is handed over as a class
 * ({@link ResourceConfig#forApplicationClass}) so that the library finds it, and its module
 * {@code @RateLimit}, through {@code Configuration.getApplication()}.
 *
 * <p>{@link #close()} may be called from any thread (a shutdown hook, say), more than once.
 */
public final class TodosServer implements AutoCloseable {

    static final String LOOPBACK = "127.0.0.1";
    private static final String[] LIBRARY_PACKAGES = {"dev.ratelimit.jaxrs", "dev.ratelimit.openapi"};
    private static final String APPLICATION_PACKAGE = TodosServer.class.getPackageName();

    private final WeldContainer weld;
    private final HttpServer http;
    private final URI baseUri;
    private boolean closed;

    private TodosServer(WeldContainer weld, HttpServer http, URI baseUri) {
        this.weld = weld;
        this.http = http;
        this.baseUri = baseUri;
    }

    /**
     * Starts Weld SE, then the HTTP server on 127.0.0.1, and returns once both are ready.
     *
     * @param port the TCP port, 0 for a free one
     */
    public static TodosServer start(int port) {
        return start(LOOPBACK, port);
    }

    static TodosServer start(String host, int port) {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port must be 0..65535, was " + port);
        }
        // Our close() stops HTTP before Weld; Weld's own hook could stop CDI under requests in flight.
        WeldContainer weld = new Weld().skipShutdownHook().initialize();
        try {
            OpenApiEndpoint openApi = OpenApiEndpoint.build();
            MetricsEndpoint metrics = new MetricsEndpoint(weld.select(PrometheusMeterRegistry.class).get());
            PublishedSecret.warnIfInUse(ConfigProvider.getConfig());
            HttpServer http = EmbeddedHttpServer.create(host, port, resourceConfig());
            // /openapi and /metrics and everything below them; Jersey has the rest
            http.getServerConfiguration().addHttpHandler(openApi,
                    HttpHandlerRegistration.builder().contextPath(OpenApiEndpoint.PATH).urlPattern("/").build());
            http.getServerConfiguration().addHttpHandler(metrics,
                    HttpHandlerRegistration.builder().contextPath(MetricsEndpoint.PATH).urlPattern("/").build());
            int bound = EmbeddedHttpServer.start(http);
            URI baseUri = URI.create("http://" + EmbeddedHttpServer.uriHost(reachable(host)) + ":" + bound + "/");
            // the partner's default URL (http://self.invalid) is this server, on the port it bound
            SelfAddress.learn(baseUri);
            return new TodosServer(weld, http, baseUri);
        } catch (RuntimeException | Error e) {
            weld.shutdown();
            throw e;
        }
    }

    /** Where a client on this machine reaches a server bound to {@code host}: a wildcard is reached on loopback. */
    private static String reachable(String host) {
        String bare = EmbeddedHttpServer.bare(host);
        if (bare.equals("0.0.0.0")) {
            return LOOPBACK;
        }
        return bare.equals("::") || bare.equals("0:0:0:0:0:0:0:0") ? "::1" : bare;
    }

    static ResourceConfig resourceConfig() {
        ResourceConfig config = ResourceConfig.forApplicationClass(TodosApplication.class)
                .packages(true, LIBRARY_PACKAGES)
                .packages(false, APPLICATION_PACKAGE)
                .register(new PortableJson())
                // The MicroProfile Rest Client brings JSON-B (Yasson) for its own use: the server binds JSON with
                // Jackson alone, as on every other runtime (a JSON-B provider would answer some bodies itself).
                .property(CommonProperties.JSON_BINDING_FEATURE_DISABLE_SERVER, true)
                // WADL needs a JAXB implementation; without one Jersey only warns that it is off.
                .property(ServerProperties.WADL_FEATURE_DISABLE, true);
        Bucket4jLettucePeer.registerIfAsked(config); // the HTTP benchmarks' peer: off unless asked for
        RoundTripFloor.registerIfAsked(config); // the HTTP benchmarks' floor of one round trip: off unless asked for
        return config;
    }

    /**
     * JSON binding as the other runtimes do it: unknown properties are ignored (as JSON-B and Quarkus's
     * Jackson do), and a title must be a JSON string ({@code {"title": 5}} does not bind). Malformed JSON
     * and a wrong type are a 400 through Jersey's Jackson exception mappers. Registered here, not scanned:
     * the other runtimes bring their own JSON binding.
     */
    private static final class PortableJson implements ContextResolver<ObjectMapper> {
        private final ObjectMapper mapper = new ObjectMapper()
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

        PortableJson() {
            mapper.coercionConfigFor(LogicalType.Textual)
                    .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        }

        @Override
        public ObjectMapper getContext(Class<?> type) {
            return mapper;
        }
    }

    /** The port the server listens on. */
    public int port() {
        return baseUri.getPort();
    }

    /** {@code http://127.0.0.1:PORT/} ({@code http://[::1]:PORT/} on the IPv6 loopback). */
    public URI baseUri() {
        return baseUri;
    }

    /**
     * Stops the HTTP server (and Jersey), then the Weld container, and lets go of the cached MicroProfile
     * Config, so that a server started later in this JVM reads system properties afresh. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        SelfAddress.forget(baseUri);
        try {
            EmbeddedHttpServer.stop(http);
        } finally {
            try {
                if (weld.isRunning()) {
                    weld.shutdown();
                }
            } finally {
                ConfigProviderResolver config = ConfigProviderResolver.instance();
                config.releaseConfig(config.getConfig());
            }
        }
    }
}
