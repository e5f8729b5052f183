package dev.ratelimit.examples.todos;

import java.lang.System.Logger.Level;

/**
 * {@code java -jar todos.jar}: serves the example on {@code $HOST:$PORT} (defaults 127.0.0.1 and 8080; an IPv6
 * address such as {@code HOST=::1} binds that address alone) and prints one line once it is ready. Rate-limit settings come from MicroProfile Config, so system
 * properties and environment variables override {@code META-INF/microprofile-config.properties}, e.g.
 * {@code java -Dratelimit.global.permit-limit=1000 -jar todos.jar}.
 */
public final class Main {

    private static final System.Logger LOG = System.getLogger(Main.class.getName());

    private Main() {
    }

    public static void main(String[] args) {
        String host = env("HOST", TodosServer.LOOPBACK);
        int port = port(env("PORT", "8080"));
        TodosServer server;
        try {
            server = TodosServer.start(host, port);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "todos failed to start on " + host + ":" + port, e);
            System.exit(1);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "todos-shutdown"));
        // The launcher's one line of output, not a log record: scripts wait for it.
        System.out.println("todos listening on " + server.baseUri());
    }

    private static String env(String name, String otherwise) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? otherwise : value.strip();
    }

    private static int port(String value) {
        try {
            int port = Integer.parseInt(value);
            if (port >= 0 && port <= 65_535) {
                return port;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        System.err.println("todos: PORT must be a number 0..65535, was '" + value + "'");
        System.exit(2);
        return -1;
    }
}
