package dev.ratelimit.core.live;

import dev.ratelimit.core.binding.LimitBinder;
import dev.ratelimit.core.config.LimitsFile;
import dev.ratelimit.core.config.Plan;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.config.SettingsSource;
import dev.ratelimit.core.log.LogText;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Live values: reads {@code ratelimit.limits-file} (when its modification time or size changed) and the
 * live keys of the base configuration again, and puts what changed in force ({@link LimitBinder#apply}). A
 * value that fails validation is not applied: a warning names the key and the value, once, and the previous value
 * stays; the other changes apply. A missing or unreadable file is a warning; the last good values stay. Each
 * applied change is logged once, {@code key: old -> new}. Nothing here ever throws at a running application.
 *
 * <p>Who calls {@link #refresh} (a timer every {@code ratelimit.refresh-seconds}) is the integration's business.
 * Thread-safe: {@link #refresh} holds {@code this}; every field is guarded by it.
 */
public final class LiveValues {

    private static final System.Logger LOG = System.getLogger("dev.ratelimit");
    private static final String[] PROPERTIES = {RateLimitSettings.PERMIT_LIMIT, RateLimitSettings.WINDOW_SECONDS,
            RateLimitSettings.ALGORITHM, RateLimitSettings.MODE_PROPERTY};
    /** What only {@code ratelimit.limits.<name>.*} sets, never a plan: whose count, the wait, what counts. */
    private static final String[] LIMIT_PROPERTIES = {RateLimitSettings.MAX_WAIT_MILLIS, RateLimitSettings.PER,
            RateLimitSettings.FAILURES_ONLY, RateLimitSettings.FAILURE_STATUSES};

    /** The engine's binder ({@code RateLimitEngine.binder()}): what puts a configuration in force. */
    private final LimitBinder binder;
    private final SettingsSource base;
    private final SettingsSource fixed;
    private final Path file;
    /** The configuration in force: the one the engine was built with, then each one applied. */
    private SettingsSource applied;
    private Map<String, String> fileValues;
    private Object fileStamp;
    private boolean fileWarned;
    private final Set<String> warnedValues = new HashSet<>();

    /**
     * @param binder  the engine's binder ({@code engine.binder()}), the engine built on the settings of {@code startup}
     * @param startup what the engine's settings were read from ({@link #startup})
     * @param base    the configuration read again (MicroProfile Config), under the file
     * @param file    {@code ratelimit.limits-file}, or null
     */
    public LiveValues(LimitBinder binder, Startup startup, SettingsSource base, Path file) {
        this.binder = binder;
        this.base = base;
        this.fixed = startup.source;
        this.file = file;
        this.applied = startup.source;
        this.fileValues = startup.fileValues;
        this.fileStamp = startup.fileStamp;
        this.fileWarned = startup.fileValues == null;
    }

    /**
     * The configuration an application starts with: {@code file}'s live keys over {@code base}, frozen. A missing
     * or unreadable file is a warning (the application starts with {@code base} alone).
     */
    public static Startup startup(SettingsSource base, Path file) {
        Map<String, String> values = null;
        Object stamp = null;
        Set<String> ignored = new TreeSet<>();
        if (file != null) {
            try {
                stamp = stamp(file);
                values = read(file, ignored);
            } catch (IOException e) {
                LOG.log(Level.WARNING, "ratelimit: the limits file " + file + " (" + LimitsFile.LIMITS_FILE + ") cannot "
                        + "be read (" + e + "); the application starts with the rest of its configuration");
            }
        }
        List<String> warnings = new ArrayList<>();
        for (String key : ignored) {
            warnings.add(ignoredKey(file, key));
        }
        return new Startup(LimitsFile.layered(values == null ? Map.of() : values, base, base), values, stamp, warnings);
    }

    /**
     * Reads the file (if it changed) and the base configuration again, and applies what changed.
     *
     * @return the number of keys whose change was applied
     */
    public synchronized int refresh() {
        try {
            return refreshOnce();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "ratelimit: live values could not be read again (" + e + "); the values in force stay", e);
            return 0;
        }
    }

    private int refreshOnce() {
        readFile();
        SettingsSource next = LimitsFile.layered(fileValues == null ? Map.of() : fileValues, base, fixed);
        Map<String, Optional<String>> changes = new LinkedHashMap<>();
        for (String key : liveKeys(next)) {
            Optional<String> now = next.value(key).map(String::strip).filter(v -> !v.isEmpty());
            Optional<String> was = applied.value(key).map(String::strip).filter(v -> !v.isEmpty());
            if (!now.equals(was)) {
                changes.put(key, now);
            }
        }
        if (changes.isEmpty()) {
            return 0;
        }
        Map<String, Optional<String>> accepted = new LinkedHashMap<>(changes);
        if (check(LimitsFile.changed(applied, accepted, next)) != null) {
            for (Map.Entry<String, Optional<String>> change : changes.entrySet()) {
                String problem = check(LimitsFile.changed(applied, Map.of(change.getKey(), change.getValue()), next));
                if (problem != null) {
                    accepted.remove(change.getKey());
                    warnRejected(change.getKey(), change.getValue(), problem);
                }
            }
        }
        if (accepted.isEmpty()) {
            return 0;
        }
        SettingsSource candidate = LimitsFile.changed(applied, accepted, next);
        String problem = check(candidate);
        if (problem != null) {
            // each change alone is valid, together they are not (a cost above a lowered limit and ...): none applies
            for (Map.Entry<String, Optional<String>> change : accepted.entrySet()) {
                warnRejected(change.getKey(), change.getValue(), problem);
            }
            return 0;
        }
        RateLimitSettings settings = RateLimitSettings.load(candidate);
        binder.apply(settings);
        for (Map.Entry<String, Optional<String>> change : accepted.entrySet()) {
            LOG.log(Level.INFO, "ratelimit: " + LogText.of(change.getKey()) + ": " + LogText.of(applied.value(
                    change.getKey()).map(String::strip).filter(v -> !v.isEmpty()).orElse("(unset)"))
                    + " -> " + LogText.of(change.getValue().orElse("(unset)")));
            warnedValues.removeIf(w -> w.startsWith(change.getKey() + '\u0000'));
        }
        applied = candidate;
        return accepted.size();
    }

    /** Null when {@code source} makes a valid configuration for every call site; else what is wrong. */
    private String check(SettingsSource source) {
        try {
            binder.check(RateLimitSettings.load(source));
            return null;
        } catch (RuntimeException e) {
            return e.getMessage();
        }
    }

    private void warnRejected(String key, Optional<String> value, String problem) {
        if (warnedValues.add(key + '\u0000' + value.orElse(""))) {
            LOG.log(Level.WARNING, "ratelimit: " + LogText.of(key) + "=" + LogText.of(value.orElse("(unset)"))
                    + " is not applied (" + LogText.of(problem) + "); the previous value stays: "
                    + LogText.of(applied.value(key).orElse("(unset)")));
        }
    }

    /**
     * The live keys to compare: those either configuration lists, and those that apply to the names and plans the
     * application declares (a source may resolve keys it does not list: environment variables).
     */
    private Set<String> liveKeys(SettingsSource next) {
        Set<String> keys = new TreeSet<>();
        for (SettingsSource source : List.of(next, applied)) {
            for (String key : source.keys()) {
                if (LimitsFile.isLive(key)) {
                    keys.add(key);
                }
            }
        }
        keys.add(RateLimitSettings.MODE);
        keys.add(RateLimitSettings.PLANS);
        keys.add(RateLimitSettings.GLOBAL_PERMIT_LIMIT);
        keys.add(RateLimitSettings.GLOBAL_WINDOW_SECONDS);
        Set<String> names = new TreeSet<>(binder.declaredNames().keySet());
        Set<String> plans = new TreeSet<>();
        for (Plan plan : binder.live().settings.plans()) {
            plans.add(plan.name());
        }
        for (String plan : next.value(RateLimitSettings.PLANS).orElse("").split(",")) {
            if (!plan.isBlank()) {
                plans.add(plan.strip());
            }
        }
        for (String name : names) {
            for (String property : LIMIT_PROPERTIES) {
                keys.add(RateLimitSettings.LIMITS + name + "." + property);
            }
            for (String property : PROPERTIES) {
                keys.add(RateLimitSettings.LIMITS + name + "." + property);
                for (String plan : plans) {
                    keys.add(RateLimitSettings.PLANS + "." + plan + ".limits." + name + "." + property);
                }
            }
        }
        for (String plan : plans) {
            keys.add(RateLimitSettings.PLANS + "." + plan + ".role");
        }
        return keys;
    }

    private void readFile() {
        if (file == null) {
            return;
        }
        try {
            Object stamp = stamp(file);
            if (fileValues != null && Objects.equals(stamp, fileStamp)) {
                return;
            }
            Set<String> ignored = new TreeSet<>();
            fileValues = read(file, ignored);
            fileStamp = stamp;
            fileWarned = false;
            for (String key : ignored) { // once per change of the file: it is read again only when it changed
                LOG.log(Level.WARNING, ignoredKey(file, key));
            }
        } catch (IOException e) {
            if (!fileWarned) {
                fileWarned = true;
                LOG.log(Level.WARNING, "ratelimit: the limits file " + file + " (" + LimitsFile.LIMITS_FILE + ") is "
                        + "missing or cannot be read (" + e + "); the last good values stay");
            }
        }
    }

    /**
     * The warning for a key the limits file sets but does not read (docs/operating-limits.md, "Live values"), naming
     * the key and the file.
     */
    static String ignoredKey(Path file, String key) {
        return "ratelimit: the limits file " + file + " (" + LimitsFile.LIMITS_FILE + ") sets " + LogText.of(key)
                + ", which the limits file does not read (it reads only ratelimit.mode, ratelimit.limits.*, "
                + "ratelimit.plans and ratelimit.plans.*, ratelimit.global.permit-limit and .window-seconds; other keys "
                + "belong in the application's configuration): ignored";
    }

    private static Map<String, String> read(Path file, Set<String> ignored) throws IOException {
        return LimitsFile.read(file, ignored);
    }

    private static Object stamp(Path file) throws IOException {
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
        return List.of(attributes.lastModifiedTime(), attributes.size(), attributes.fileKey() == null ? ""
                : attributes.fileKey());
    }

    /** The configuration an application starts with, and the file it was read from. */
    public static final class Startup {
        private final SettingsSource source;
        private final Map<String, String> fileValues;
        private final Object fileStamp;
        private final List<String> warnings;

        Startup(SettingsSource source, Map<String, String> fileValues, Object fileStamp, List<String> warnings) {
            this.source = source;
            this.fileValues = fileValues;
            this.fileStamp = fileStamp;
            this.warnings = List.copyOf(warnings);
        }

        /**
         * One warning per key the limits file sets but does not read, naming the key and the file: for the start-up
         * log (once; a refresh warns again only when the file changed).
         */
        public List<String> warnings() {
            return warnings;
        }

        /** The file's live keys over the base configuration, frozen: what the engine's settings are read from. */
        public SettingsSource source() {
            return source;
        }
    }
}
