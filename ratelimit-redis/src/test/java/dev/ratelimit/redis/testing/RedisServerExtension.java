package dev.ratelimit.redis.testing;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real Redis for one test class ({@link RedisServer}: on a loopback port it bound itself, without persistence):
 * the binary that {@code com.github.codemonstur:embedded-redis} ships (Redis 6.2; {@code redis-server} from the PATH
 * if that binary cannot run here), or the one named by the system property
 * {@code ratelimit.test.redis-server} (a path, or a name on the PATH, e.g. {@code redis-server} for the
 * system's Redis 7). Always stopped after the class (and by a shutdown hook if the JVM ends first);
 * {@link #stop()} and {@link #start()} let a test cause an outage.
 *
 * <p>Use as {@code @RegisterExtension static final RedisServerExtension REDIS = new RedisServerExtension();}
 */
public final class RedisServerExtension implements BeforeAllCallback, AfterAllCallback {

    public static final String BINARY_PROPERTY = "ratelimit.test.redis-server";
    /**
     * The major version the Redis of {@link #BINARY_PROPERTY} must have, e.g. {@code 7} in the build's second run of
     * the Redis tests: a binary that is missing or older fails the class, saying so, instead of running the tests on
     * another Redis.
     */
    public static final String MAJOR_PROPERTY = "ratelimit.test.redis-major";

    private final List<String> extraArgs;
    private RedisServer server;

    /** @param extraArgs more {@code redis-server} arguments, e.g. {@code "--cluster-enabled", "yes"} */
    public RedisServerExtension(String... extraArgs) {
        this.extraArgs = List.of(extraArgs);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        startOnFreePort();
    }

    /** Starts Redis on a port of its own, outside JUnit (a main); {@link #close()} it. */
    public RedisServerExtension startOnFreePort() throws IOException, InterruptedException {
        String configured = System.getProperty(BINARY_PROPERTY, "").strip();
        String binary = configured.isEmpty() ? RedisServer.defaultBinary() : configured;
        String major = System.getProperty(MAJOR_PROPERTY, "").strip();
        if (!major.isEmpty()) {
            RedisServer.requireMajor(binary, Integer.parseInt(major));
        }
        server = new RedisServer(binary, extraArgs);
        server.start();
        return this;
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        close();
    }

    /** Stops Redis and deletes its folder (its log); for a main that used {@link #startOnFreePort()}. */
    public void close() throws IOException, InterruptedException {
        if (server != null) {
            server.close();
        }
    }

    public int port() {
        return server.port();
    }

    public String uri() {
        return server.uri();
    }

    /** A new bare client; close it. */
    public Resp client() {
        return new Resp(port());
    }

    /** Starts Redis on this extension's port again, after {@link #stop()}; returns when it answers PING. */
    public void start() throws IOException, InterruptedException {
        server.start();
    }

    /** Stops Redis (SIGTERM, then SIGKILL after 5 s); returns once the process has exited. */
    public void stop() throws InterruptedException {
        server.stop();
    }

    /** The process id of the running Redis. */
    public long pid() {
        return server.pid();
    }
}
