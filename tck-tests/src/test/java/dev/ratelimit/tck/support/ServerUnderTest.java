package dev.ratelimit.tck.support;

import dev.ratelimit.examples.todos.TodosServer;

import java.net.URI;
import java.util.OptionalInt;
import java.util.UUID;

/**
 * The server the suite talks to: an already running example application ({@code -Dtck.baseUrl}), or the
 * embedded example, started once per JVM on a free port.
 *
 * <p>{@code tck.globalPermitLimit} is the global limit ({@code ratelimit.global.permit-limit}, name
 * {@code application}, window 60 s) the server runs with. Embedded: the suite starts the example with it,
 * default {@value #EMBEDDED_GLOBAL_PERMIT_LIMIT}, {@code none} for no global limit. External: it describes
 * how the server was started; absent means none.
 */
public final class ServerUnderTest implements AutoCloseable {

    public static final String BASE_URL_PROPERTY = "tck.baseUrl";
    public static final String GLOBAL_PERMIT_LIMIT_PROPERTY = "tck.globalPermitLimit";
    static final int EMBEDDED_GLOBAL_PERMIT_LIMIT = 100;

    private final URI baseUri;
    private final OptionalInt globalPermitLimit;
    private final AutoCloseable embedded;

    private ServerUnderTest(URI baseUri, OptionalInt globalPermitLimit, AutoCloseable embedded) {
        this.baseUri = baseUri;
        this.globalPermitLimit = globalPermitLimit;
        this.embedded = embedded;
    }

    static ServerUnderTest connect() {
        String baseUrl = property(BASE_URL_PROPERTY);
        String global = property(GLOBAL_PERMIT_LIMIT_PROPERTY);
        if (baseUrl != null) {
            return new ServerUnderTest(URI.create(baseUrl), parseGlobal(global, OptionalInt.empty()), null);
        }
        OptionalInt globalLimit = parseGlobal(global, OptionalInt.of(EMBEDDED_GLOBAL_PERMIT_LIMIT));
        if (globalLimit.isPresent()) {
            System.setProperty("ratelimit.global.permit-limit", Integer.toString(globalLimit.getAsInt()));
        } else {
            System.clearProperty("ratelimit.global.permit-limit");
        }
        TodosServer server = TodosServer.start(0);
        return new ServerUnderTest(server.baseUri(), globalLimit, server);
    }

    private static String property(String key) {
        String value = System.getProperty(key);
        return value == null || value.isBlank() ? null : value.trim();
    }

    private static OptionalInt parseGlobal(String value, OptionalInt otherwise) {
        if (value == null) {
            return otherwise;
        }
        if (value.equalsIgnoreCase("none")) {
            return OptionalInt.empty();
        }
        try {
            int limit = Integer.parseInt(value);
            if (limit < 1) {
                throw new NumberFormatException("must be >= 1");
            }
            return OptionalInt.of(limit);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    GLOBAL_PERMIT_LIMIT_PROPERTY + " must be a positive integer or 'none', was '" + value + "'", e);
        }
    }

    /** The global limit's permitLimit, when the server runs with one. */
    public OptionalInt globalPermitLimit() {
        return globalPermitLimit;
    }

    public URI resolve(String path) {
        String base = baseUri.toString();
        if (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        return URI.create(base + path);
    }

    /** A caller with a partition of its own: an {@code X-Api-Key} nobody else sends. */
    public Caller withFreshKey() {
        return withKey(freshName("key"));
    }

    public Caller withKey(String key) {
        return anonymous().withHeader("X-Api-Key", key);
    }

    /** An authenticated caller ({@code Authorization: Bearer <name>}, the example's authentication). */
    public Caller as(String callerName) {
        return anonymous().withHeader("Authorization", "Bearer " + callerName);
    }

    /** A caller with a partition of its own: an authenticated name nobody else uses. */
    public Caller asFreshUser() {
        return as(freshName("user"));
    }

    /** Neither key nor credentials: the shared {@code anonymous} partition. */
    public Caller anonymous() {
        return new Caller(this);
    }

    public static String freshName(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    @Override
    public void close() throws Exception {
        if (embedded != null) {
            embedded.close();
        }
    }

    @Override
    public String toString() {
        String global = globalPermitLimit.isPresent() ? "global limit " + globalPermitLimit.getAsInt() : "no global limit";
        return (embedded != null ? "embedded example at " : "external server at ") + baseUri + ", " + global;
    }
}
