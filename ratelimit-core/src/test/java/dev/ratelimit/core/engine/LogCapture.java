package dev.ratelimit.core.engine;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Captures what the library logs on the {@code java.util.logging} logger {@code dev.ratelimit} (the
 * backend of {@code System.getLogger("dev.ratelimit")}) and its children, until closed.
 */
public final class LogCapture extends Handler implements AutoCloseable {

    /** Held so that the logger, and the handler on it, is not collected while a test runs. */
    private final Logger logger;
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final boolean parentHandlers;

    public LogCapture() {
        this("dev.ratelimit");
    }

    public LogCapture(String name) {
        this.logger = Logger.getLogger(name);
        setLevel(Level.ALL);
        parentHandlers = logger.getUseParentHandlers();
        logger.setUseParentHandlers(false); // keeps the build output free of expected warnings
        logger.addHandler(this);
    }

    @Override
    public void publish(LogRecord record) {
        records.add(record);
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        logger.removeHandler(this);
        logger.setUseParentHandlers(parentHandlers);
    }

    /** The messages logged at exactly {@code level}, in order. */
    public List<String> messages(Level level) {
        return records.stream().filter(r -> r.getLevel().equals(level)).map(LogRecord::getMessage).toList();
    }

    /** The messages logged at exactly {@code level} that contain {@code text}. */
    public List<String> messages(Level level, String text) {
        return messages(level).stream().filter(m -> m != null && m.contains(text)).toList();
    }

    /** Every record, in order. */
    public List<LogRecord> records() {
        return List.copyOf(records);
    }
}
