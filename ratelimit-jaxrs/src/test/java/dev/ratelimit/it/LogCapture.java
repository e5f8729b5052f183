package dev.ratelimit.it;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Records what the library logs through {@code System.Logger} (backed by java.util.logging here) under
 * {@code dev.ratelimit}, child loggers included, at every level, while open.
 */
public final class LogCapture extends Handler implements AutoCloseable {

    public static final String LIBRARY_LOGGER = "dev.ratelimit";

    private final Logger logger; // held strongly: java.util.logging keeps loggers only weakly
    private final Level previousLevel;
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();

    private LogCapture(Logger logger) {
        this.logger = logger;
        this.previousLevel = logger.getLevel();
        setLevel(Level.ALL);
        logger.setLevel(Level.ALL);
        logger.addHandler(this);
    }

    public static LogCapture library() {
        return new LogCapture(Logger.getLogger(LIBRARY_LOGGER));
    }

    @Override
    public void publish(LogRecord record) {
        records.add(record);
    }

    /** The formatted messages logged at exactly {@code level}. */
    public List<String> messages(Level level) {
        List<String> messages = new ArrayList<>();
        for (LogRecord r : records) {
            if (r.getLevel().equals(level)) {
                messages.add(r.getMessage());
            }
        }
        return messages;
    }

    public List<LogRecord> records() {
        return List.copyOf(records);
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        logger.removeHandler(this);
        logger.setLevel(previousLevel);
    }
}
