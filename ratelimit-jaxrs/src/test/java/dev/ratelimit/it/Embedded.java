package dev.ratelimit.it;

import jakarta.ws.rs.core.Application;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpServerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.ServerProperties;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;

/**
 * One test's application: a Weld SE container and, unless only CDI is wanted, Jersey on Grizzly (as the
 * embedded example) on 127.0.0.1 and a free port.
 *
 * <p>Weld discovers the bean archives on the class path as an application's deployment would (the
 * library jars, with their {@code beans.xml}; the Jersey and SmallRye Config extensions); the test
 * classes directory has no {@code beans.xml}, so a test's beans are exactly those it names, added as a
 * synthetic archive. Jersey gets the library's providers by scanning {@code dev.ratelimit.jaxrs} (as the
 * example does) and the test's resources and providers by explicit registration.
 *
 * <p>Configuration is given as system properties, set before the start and cleared on close (also when
 * the start fails), and MicroProfile Config is released on both sides, so no test sees another's.
 */
public final class Embedded implements AutoCloseable {

    private static final String LOOPBACK = "127.0.0.1";
    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    private final WeldContainer weld;
    private final HttpServer http;
    private final URI baseUri;
    private final Map<String, String> properties;
    private boolean closed;

    private Embedded(WeldContainer weld, HttpServer http, Map<String, String> properties) {
        this.weld = weld;
        this.http = http;
        this.baseUri = http == null ? null
                : URI.create("http://" + LOOPBACK + ":" + http.getListeners().iterator().next().getPort() + "/");
        this.properties = properties;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A bean of the container. */
    public <T> T bean(Class<T> type) {
        return weld.select(type).get();
    }

    /** {@code GET path} with header name/value pairs. */
    public HttpResponse<String> get(String path, String... headers) {
        return send("GET", path, headers);
    }

    public HttpResponse<String> send(String method, String path, String... headers) {
        if (baseUri == null) {
            throw new IllegalStateException("started without HTTP");
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(baseUri.resolve(path.startsWith("/") ? path.substring(1) : path))
                .timeout(Duration.ofSeconds(10))
                .method(method, HttpRequest.BodyPublishers.noBody());
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        try {
            return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(method + " " + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Stops HTTP, then CDI, then lets go of the configuration. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (http != null) {
                http.shutdownNow();
            }
        } finally {
            try {
                if (weld.isRunning()) {
                    weld.shutdown();
                }
            } finally {
                forget(properties);
            }
        }
    }

    private static void forget(Map<String, String> properties) {
        properties.keySet().forEach(System::clearProperty);
        releaseConfig();
    }

    private static void releaseConfig() {
        ConfigProviderResolver resolver = ConfigProviderResolver.instance();
        resolver.releaseConfig(ConfigProvider.getConfig(Embedded.class.getClassLoader()));
    }

    /** What one test deploys. */
    public static final class Builder {
        private final List<Class<?>> beans = new ArrayList<>();
        private final List<Class<?>> components = new ArrayList<>();
        private final Map<String, String> properties = new LinkedHashMap<>();
        private Class<? extends Application> application;

        private Builder() {
        }

        /** Classes added to the CDI container (beans, alternatives, resources that are CDI beans). */
        public Builder beans(Class<?>... types) {
            beans.addAll(List.of(types));
            return this;
        }

        /** Resource and provider classes registered with Jersey. */
        public Builder resources(Class<?>... types) {
            components.addAll(List.of(types));
            return this;
        }

        /** The {@code Application} subclass (the module), handed to Jersey as a class. */
        public Builder application(Class<? extends Application> type) {
            application = type;
            return this;
        }

        /** A MicroProfile Config value, as a system property. */
        public Builder config(String key, String value) {
            properties.put(key, value);
            return this;
        }

        /** Starts CDI only. */
        public Embedded startCdi() {
            return start(false);
        }

        /** Starts CDI, then Jersey on a free port. */
        public Embedded start() {
            return start(true);
        }

        private Embedded start(boolean withHttp) {
            Map<String, String> props = Map.copyOf(properties);
            releaseConfig();
            props.forEach(System::setProperty);
            WeldContainer weld;
            try {
                weld = new Weld().skipShutdownHook().addBeanClasses(beans.toArray(Class<?>[]::new)).initialize();
            } catch (RuntimeException | Error e) {
                forget(props);
                throw e;
            }
            if (!withHttp) {
                return new Embedded(weld, null, props);
            }
            try {
                HttpServer http = GrizzlyHttpServerFactory.createHttpServer(URI.create("http://" + LOOPBACK + ":0/"),
                        resourceConfig());
                return new Embedded(weld, http, props);
            } catch (RuntimeException | Error e) {
                try {
                    weld.shutdown();
                } finally {
                    forget(props);
                }
                throw e;
            }
        }

        private ResourceConfig resourceConfig() {
            ResourceConfig config = application == null ? new ResourceConfig()
                    : ResourceConfig.forApplicationClass(application);
            config.packages(true, "dev.ratelimit.jaxrs");
            components.forEach(config::register);
            // WADL needs a JAXB implementation; without one Jersey only warns that it is off.
            return config.property(ServerProperties.WADL_FEATURE_DISABLE, true);
        }
    }
}
