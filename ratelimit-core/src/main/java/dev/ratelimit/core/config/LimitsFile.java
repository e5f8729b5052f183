package dev.ratelimit.core.config;

import dev.ratelimit.core.InvalidRateLimitException;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Live values (docs/operating-limits.md, "Live values"): the keys that may change while the application runs, the file
 * that holds them ({@value #LIMITS_FILE}, a Kubernetes ConfigMap mounted as a file), and the configuration they make:
 * the file's values over MicroProfile Config's, every value frozen once read, so that a configuration stays what it was
 * when it was applied. Plain Java.
 */
public final class LimitsFile {

    /** A properties file of live keys, whose values take precedence over MicroProfile Config. */
    public static final String LIMITS_FILE = "ratelimit.limits-file";
    /** How often the file and the live keys of MicroProfile Config are read again; 0: once, at start-up. */
    public static final String REFRESH_SECONDS = "ratelimit.refresh-seconds";
    /** The default of {@value #REFRESH_SECONDS} when {@value #LIMITS_FILE} is set. */
    public static final int DEFAULT_REFRESH_SECONDS_WITH_FILE = 10;
    /** The longest refresh interval: a day. */
    public static final int MAX_REFRESH_SECONDS = 86_400;

    private LimitsFile() {
    }

    /**
     * True for the keys that live values read again and apply: {@code ratelimit.mode},
     * {@code ratelimit.limits.*}, {@code ratelimit.plans} and {@code ratelimit.plans.*},
     * {@code ratelimit.global.permit-limit} and {@code ratelimit.global.window-seconds}.
     */
    public static boolean isLive(String key) {
        return key.equals(RateLimitSettings.MODE) || key.startsWith(RateLimitSettings.LIMITS)
                || key.equals(RateLimitSettings.PLANS) || key.startsWith(RateLimitSettings.PLANS + ".")
                || key.equals(RateLimitSettings.GLOBAL_PERMIT_LIMIT) || key.equals(RateLimitSettings.GLOBAL_WINDOW_SECONDS);
    }

    /** {@value #LIMITS_FILE} from {@code source}, or null. */
    public static Path path(SettingsSource source) {
        String value = source.value(LIMITS_FILE).map(String::strip).orElse("");
        if (value.isEmpty()) {
            return null;
        }
        try {
            return Path.of(value);
        } catch (RuntimeException e) {
            throw new InvalidRateLimitException("ratelimit: " + LIMITS_FILE + " must be a file path, was \"" + value + "\"");
        }
    }

    /**
     * {@value #REFRESH_SECONDS} from {@code source}: 0 .. {@value #MAX_REFRESH_SECONDS}; by default 0, or
     * {@value #DEFAULT_REFRESH_SECONDS_WITH_FILE} when {@code file} is set.
     *
     * @throws InvalidRateLimitException naming the key and the value when it is malformed
     */
    public static int refreshSeconds(SettingsSource source, Path file) {
        String value = source.value(REFRESH_SECONDS).map(String::strip).orElse("");
        if (value.isEmpty()) {
            return file == null ? 0 : DEFAULT_REFRESH_SECONDS_WITH_FILE;
        }
        try {
            int seconds = Integer.parseInt(value);
            if (seconds >= 0 && seconds <= MAX_REFRESH_SECONDS) {
                return seconds;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new InvalidRateLimitException("ratelimit: " + REFRESH_SECONDS + " must be an integer from 0 to "
                + MAX_REFRESH_SECONDS + ", was \"" + value + "\"");
    }

    /**
     * The file's live keys (other keys are ignored: {@code ignored} receives them).
     *
     * @throws IOException when the file cannot be read
     */
    public static Map<String, String> read(Path file, Set<String> ignored) throws IOException {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        }
        Map<String, String> values = new LinkedHashMap<>();
        for (String key : properties.stringPropertyNames()) {
            if (isLive(key)) {
                values.put(key, properties.getProperty(key));
            } else {
                ignored.add(key);
            }
        }
        return values;
    }

    /**
     * The configuration of {@code file}'s values (live keys) over {@code base}, each value frozen once read.
     *
     * @param file  the file's live keys (empty for none)
     * @param fixed where the keys that are not live come from (the configuration the application started with)
     */
    public static SettingsSource layered(Map<String, String> file, SettingsSource base, SettingsSource fixed) {
        return new Layered(Map.copyOf(file), Map.of(), null, base, fixed);
    }

    /**
     * {@code applied} with some live keys set otherwise ({@code changes}: a value, or null to unset), the keys listed
     * those of {@code listed}.
     */
    public static SettingsSource changed(SettingsSource applied, Map<String, Optional<String>> changes,
                                         SettingsSource listed) {
        return new Layered(Map.of(), Map.copyOf(changes), applied, listed, applied);
    }

    /**
     * A frozen configuration: live keys from the file, then from {@code changes} over {@code applied}, then from
     * {@code base}; other keys from {@code fixed}. Each value is read once.
     */
    private static final class Layered implements SettingsSource {
        private final Map<String, String> file;
        private final Map<String, Optional<String>> changes;
        private final SettingsSource applied;
        private final SettingsSource base;
        private final SettingsSource fixed;
        private final ConcurrentHashMap<String, Optional<String>> frozen = new ConcurrentHashMap<>();

        Layered(Map<String, String> file, Map<String, Optional<String>> changes, SettingsSource applied,
                SettingsSource base, SettingsSource fixed) {
            this.file = file;
            this.changes = changes;
            this.applied = applied;
            this.base = base;
            this.fixed = fixed;
        }

        @Override
        public Optional<String> value(String key) {
            return frozen.computeIfAbsent(key, k -> {
                if (!isLive(k)) {
                    return fixed.value(k);
                }
                if (applied != null) {
                    return changes.containsKey(k) ? changes.get(k) : applied.value(k);
                }
                String v = file.get(k);
                return v != null ? Optional.of(v) : base.value(k);
            });
        }

        @Override
        public Iterable<String> keys() {
            Set<String> keys = new LinkedHashSet<>();
            for (String key : base.keys()) {
                keys.add(key);
            }
            keys.addAll(file.keySet());
            for (Map.Entry<String, Optional<String>> change : changes.entrySet()) {
                if (change.getValue().isPresent()) {
                    keys.add(change.getKey());
                }
            }
            return keys;
        }
    }
}
