package dev.ratelimit.examples.todos;

import java.io.IOException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.logging.Filter;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * A client that goes away before its response is written (a load generator that stops, a browser tab
 * closed) is not an error of the server: it becomes one FINE line on {@value #LOGGER_NAME}, instead of a
 * stack trace at SEVERE or WARNING for every such request. Jersey logs one at SEVERE when an entity larger
 * than its buffer (8 KiB) cannot be written, and WARNING when a failure reaches the container; Grizzly logs
 * one at WARNING when an {@code HttpHandler} throws.
 *
 * <p>Only records whose exception was raised by the connection itself are affected: an {@link IOException}
 * (anywhere in the cause chain) thrown from Grizzly's transport or the JDK's socket channel. Any other
 * failure, an {@code IOException} of Jackson's serialization included, is logged as before.
 */
final class ClientDisconnects {

    static final String LOGGER_NAME = "dev.ratelimit.examples.todos.disconnects";
    private static final Logger LOG = Logger.getLogger(LOGGER_NAME);

    /**
     * The loggers that report a vanished client with a stack trace. Held here: java.util.logging keeps
     * loggers only weakly, and a logger collected before Jersey or Grizzly asks for it would lose its filter.
     */
    private static final Logger[] NOISY = {
        Logger.getLogger("org.glassfish.jersey.server.ServerRuntime$Responder"),
        // HttpHandler's, which HttpServerFilter shares
        Logger.getLogger("org.glassfish.grizzly.http.server.HttpHandler"),
    };
    private static boolean installed;

    private ClientDisconnects() {
    }

    /** Installs the filter on the noisy loggers, keeping any filter they had. Idempotent. */
    static synchronized void quiet() {
        if (installed) {
            return;
        }
        installed = true;
        for (Logger logger : NOISY) {
            Filter before = logger.getFilter();
            logger.setFilter(record -> {
                if (record.getLevel().intValue() >= Level.WARNING.intValue() && clientWentAway(record.getThrown())) {
                    LOG.log(Level.FINE, "client went away before its response was written: {0}", rootMessage(record.getThrown()));
                    return false;
                }
                return before == null || before.isLoggable(record);
            });
        }
    }

    /** Whether {@code thrown} or one of its causes is an {@link IOException} raised by the connection. */
    static boolean clientWentAway(Throwable thrown) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = thrown; t != null && seen.add(t); t = t.getCause()) {
            if (t instanceof IOException && raisedByTheConnection(t)) {
                return true;
            }
        }
        return false;
    }

    private static boolean raisedByTheConnection(Throwable t) {
        StackTraceElement[] trace = t.getStackTrace();
        if (trace.length == 0) {
            return false;
        }
        String origin = trace[0].getClassName();
        return origin.startsWith("org.glassfish.grizzly.") || origin.startsWith("sun.nio.ch.");
    }

    private static String rootMessage(Throwable thrown) {
        Throwable root = thrown;
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        while (root.getCause() != null && seen.add(root)) {
            root = root.getCause();
        }
        return root.toString();
    }
}
