package dev.ratelimit.benchmarks.http;

import dev.ratelimit.examples.todos.EmbeddedHttpServer;
import dev.ratelimit.examples.todos.TodoResource;
import dev.ratelimit.examples.todos.TodosApplication;
import dev.ratelimit.examples.todos.TodosServer;
import jakarta.enterprise.inject.spi.Extension;
import java.util.ServiceLoader;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.ServerProperties;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;

/** The example server, with ratelimit and without. */
final class TodosServers {

    /** Counts the store may keep: more than the benchmark's keys, so that every request is counted. */
    static final int MAX_TRACKED_PARTITIONS = 200_000;

    private TodosServers() {
    }

    /** The example exactly as it ships ({@code TodosServer}), its limits on. */
    static AutoCloseable withRateLimit(int[] port) {
        String key = "ratelimit.max-tracked-partitions";
        String before = System.getProperty(key);
        System.setProperty(key, Integer.toString(MAX_TRACKED_PARTITIONS));
        try {
            TodosServer server = TodosServer.start(0);
            port[0] = server.port();
            return server;
        } finally {
            if (before == null) {
                System.clearProperty(key);
            } else {
                System.setProperty(key, before);
            }
        }
    }

    /**
     * The same resource classes on the same Weld SE + Jersey + Grizzly server ({@link EmbeddedHttpServer},
     * as {@code TodosServer} sets it up), ratelimit switched off:
     * the CDI container holds only the example's classes (not the library's interceptor and beans), and
     * Jersey registers only the example's package (not the library's {@code dev.ratelimit.jaxrs}
     * providers). The {@code @RateLimit} annotations stay on the classes, inert.
     */
    static AutoCloseable rateLimitOff(int[] port) {
        Weld builder = new Weld("ratelimit-off")
                .disableDiscovery()
                .skipShutdownHook()
                .addPackages(false, TodoResource.class);
        // Without discovery Weld loads no portable extension by itself: Jersey's CDI integration is one.
        for (Extension extension : ServiceLoader.load(Extension.class)) {
            builder.addExtension(extension);
        }
        WeldContainer weld = builder.initialize();
        try {
            ResourceConfig config = ResourceConfig.forApplicationClass(TodosApplication.class)
                    .packages(false, TodoResource.class.getPackageName())
                    .property(ServerProperties.WADL_FEATURE_DISABLE, true);
            HttpServer http = EmbeddedHttpServer.create("127.0.0.1", 0, config);
            port[0] = EmbeddedHttpServer.start(http);
            return () -> {
                try {
                    EmbeddedHttpServer.stop(http);
                } finally {
                    weld.shutdown();
                }
            };
        } catch (RuntimeException | Error e) {
            weld.shutdown();
            throw e;
        }
    }
}
