package dev.ratelimit.core.testing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The records that {@code java.util.logging} loggers (the backend of {@code System.getLogger} unless a runtime routes
 * it elsewhere, and of Lettuce, Hazelcast or Grizzly in the tests) receive while open, their children's included, for
 * the tests of every module. Each logger's level and console output are left as they were unless asked, and put back
 * when closed.
 *
 * <p>Use as {@code try (LogRecords logs = LogRecords.on("dev.ratelimit")) { ... }}, or as a field closed after each
 * test.
 */
public final class LogRecords implements AutoCloseable {

    /** The logger of the library: {@code dev.ratelimit} and every logger under it. */
    public static final String LIBRARY = "dev.ratelimit";

    /** Held: JUL keeps loggers weakly, and with them their handlers and levels. */
    private final List<Logger> loggers = new ArrayList<>();
    private final Map<Logger, Level> levels = new LinkedHashMap<>();
    private final Map<Logger, Boolean> parentHandlers = new LinkedHashMap<>();
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    private LogRecords(String... names) {
        handler.setLevel(Level.ALL);
        for (String name : names) {
            Logger logger = Logger.getLogger(name);
            loggers.add(logger);
            logger.addHandler(handler);
        }
    }

    /** Records what the loggers {@code names} ({@code ""} for the root) receive, from now until closed. */
    public static LogRecords on(String... names) {
        return new LogRecords(names);
    }

    /** The loggers {@code names} log at {@code level} while open (every level with {@link Level#ALL}). */
    public LogRecords level(Level level, String... names) {
        for (String name : names) {
            Logger logger = Logger.getLogger(name);
            levels.putIfAbsent(logger, logger.getLevel());
            logger.setLevel(level);
        }
        return this;
    }

    /** The records go here alone, not on to the console as well: a build's output without expected warnings. */
    public LogRecords quiet() {
        for (Logger logger : loggers) {
            parentHandlers.putIfAbsent(logger, logger.getUseParentHandlers());
            logger.setUseParentHandlers(false);
        }
        return this;
    }

    /** Every record so far, in order. */
    public List<LogRecord> records() {
        return List.copyOf(records);
    }

    /** The messages logged at exactly {@code level}, in order. */
    public List<String> messages(Level level) {
        return records.stream().filter(r -> r.getLevel().equals(level)).map(LogRecord::getMessage).toList();
    }

    /** The messages logged at exactly {@code level} that contain {@code text}. */
    public List<String> messages(Level level, String text) {
        return messages(level).stream().filter(m -> m != null && m.contains(text)).toList();
    }

    /** Forgets the records so far (those of a test's set-up). */
    public void clear() {
        records.clear();
    }

    @Override
    public void close() {
        loggers.forEach(logger -> logger.removeHandler(handler));
        levels.forEach(Logger::setLevel);
        parentHandlers.forEach(Logger::setUseParentHandlers);
    }
}
