package dev.ratelimit.core.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;

/**
 * Every {@code ratelimit.*} key the library reads, with its type, default, whether it changes while the application
 * runs, and what it means: the one list that {@code docs/configuration.md} is generated from. The core lists its own
 * keys; each module on the class path adds its own through a {@link KeyProvider} ({@link #installed()}). Tests hold the
 * code to it: a key that {@link RateLimitSettings}, {@link AdminSettings}, {@link LimitsFile} or a module's settings
 * read must be listed with the default it really has, and the Quarkus extension's configuration root must offer
 * exactly the keys of the artifacts it supports. A listed key is known: a configuration that sets it is not warned
 * about ({@link UnknownKeys}).
 *
 * <p>{@code <name>} stands for a limit's name, {@code <plan>} for a plan's. Immutable; built when the application
 * deploys and read by nothing on the request path.
 */
public final class KeyCatalogue {

    /** Where a key belongs on the reference page, in the page's order. */
    public enum Section {
        SWITCHES("Switching limits on and off"),
        PARTITIONS("Who shares a count"),
        GLOBAL("The global limit"),
        LIMITS("Limits by name"),
        PLANS("Plans"),
        LIVE("Changing limits while the application runs"),
        ADMIN("The admin API"),
        STORES("Stores"),
        TESTS("Tests");

        private final String title;

        Section(String title) {
            this.title = title;
        }

        /** The heading of the section on the reference page. */
        public String title() {
            return title;
        }
    }

    /**
     * One key.
     *
     * @param name         the key; {@code <name>} and {@code <plan>} stand for a limit's and a plan's name
     * @param section      where it belongs on the reference page
     * @param type         what it accepts, in words (units and ranges included)
     * @param defaultValue the value the library uses when the key is unset, exactly as one would write it; null when
     *                     unset means "nothing" (no such limit, no header, ...)
     * @param defaultNote  words after the default (or in its place when it is null), or null
     * @param live         true when a change is applied while the application runs (with
     *                     {@code ratelimit.refresh-seconds} or a limits file); false when it is read once, at start-up
     * @param artifact     the artifact that reads it
     * @param meaning      what it does, in one or two sentences
     */
    public record Key(String name, Section section, String type, String defaultValue, String defaultNote, boolean live,
                      String artifact, String meaning) {
    }

    /**
     * An older name that a module keeps working for a key of the core's settings: read when that key is unset (the
     * key wins when both are set), and named by the message when its value is malformed.
     *
     * @param name      the older name, e.g. {@code ratelimit.<module>.timeout-millis}
     * @param standsFor the core key it stands for, e.g. {@code ratelimit.store.timeout-millis}: a key without
     *                  {@code <name>} or {@code <plan>} that {@link RateLimitSettings} reads (not the admin API's, not
     *                  the limits file's)
     * @param artifact  the artifact that keeps it working
     */
    public record Alias(String name, String standsFor, String artifact) {
    }

    private static final String PREFIX = "ratelimit.";
    /** How many providers that fail to load are passed over before the rest of a loader's are given up. */
    private static final int MAX_FAILURES = 16;
    /** The installed catalogue, found once (see {@link #installed()}). */
    private static volatile KeyCatalogue installed;

    private final List<Key> keys;
    private final List<Alias> aliases;
    private final Map<String, List<String>> aliasesByKey;

    private KeyCatalogue(List<Key> keys, List<Alias> aliases) {
        this.keys = List.copyOf(keys);
        this.aliases = List.copyOf(aliases);
        Map<String, List<String>> byKey = new LinkedHashMap<>();
        for (Alias alias : aliases) {
            byKey.computeIfAbsent(alias.standsFor(), k -> new ArrayList<>()).add(alias.name());
        }
        byKey.replaceAll((k, names) -> List.copyOf(names));
        this.aliasesByKey = Map.copyOf(byKey);
    }

    /**
     * The core's keys and those of every {@link KeyProvider} on the class path, found with {@link ServiceLoader} through
     * the thread's context class loader (the application's, on Quarkus, Open Liberty and Payara) and through the
     * core's own, once: the first call, when the application deploys, decides.
     *
     * @throws IllegalStateException when two artifacts list the same key, or an alias stands for no key of the core's
     *                               settings
     */
    public static KeyCatalogue installed() {
        KeyCatalogue found = installed;
        if (found == null) {
            synchronized (KeyCatalogue.class) {
                found = installed;
                if (found == null) {
                    found = of(discovered(Thread.currentThread().getContextClassLoader()));
                    installed = found;
                }
            }
        }
        return found;
    }

    /**
     * The core's keys and those of {@code providers}, and no others (tests; a runtime uses {@link #installed()}).
     *
     * @throws IllegalStateException as {@link #installed()}
     */
    public static KeyCatalogue of(List<? extends KeyProvider> providers) {
        List<KeyProvider> ordered = new ArrayList<>(providers);
        // the order of the page does not hang on the order of the class path
        ordered.sort(Comparator.comparing(KeyCatalogue::artifactOf).thenComparing(p -> p.getClass().getName()));
        List<Key> all = new ArrayList<>(CoreKeys.KEYS);
        List<Alias> aliases = new ArrayList<>();
        Map<String, Key> byName = new LinkedHashMap<>();
        for (Key key : CoreKeys.KEYS) {
            byName.put(key.name(), key);
        }
        for (KeyProvider provider : ordered) {
            for (Key key : provider.keys()) {
                claim(byName, key.name(), key, provider);
                all.add(key);
            }
        }
        for (KeyProvider provider : ordered) {
            for (Alias alias : provider.aliases()) {
                Key target = byName.get(alias.standsFor());
                if (target == null || !target.artifact().equals(CoreKeys.ARTIFACT) || target.name().indexOf('<') >= 0
                        || target.section() == Section.ADMIN || target.section() == Section.LIVE) {
                    throw new IllegalStateException(provider.getClass().getName() + ": the alias " + alias.name()
                            + " stands for " + alias.standsFor() + ", which is no key of the core's settings");
                }
                Key row = new Key(alias.name(), target.section(), target.type(), null,
                        "`" + target.name() + "` applies", target.live(), alias.artifact(),
                        "The older spelling of `" + target.name() + "`, read when that key is unset.");
                claim(byName, alias.name(), row, provider);
                all.add(row);
                aliases.add(alias);
            }
        }
        all.sort(Comparator.comparing(Key::section)); // stable: each section keeps the order above
        return new KeyCatalogue(all, aliases);
    }

    private static void claim(Map<String, Key> byName, String name, Key key, KeyProvider provider) {
        if (!name.startsWith(PREFIX)) {
            throw new IllegalStateException(provider.getClass().getName() + ": the key " + name + " does not start with "
                    + PREFIX);
        }
        Key before = byName.putIfAbsent(name, key);
        if (before != null) {
            throw new IllegalStateException(provider.getClass().getName() + ": the key " + name + " of " + key.artifact()
                    + " is listed by " + before.artifact() + " already");
        }
    }

    private static String artifactOf(KeyProvider provider) {
        List<Key> keys = provider.keys();
        if (!keys.isEmpty()) {
            return keys.get(0).artifact();
        }
        List<Alias> aliases = provider.aliases();
        return aliases.isEmpty() ? "" : aliases.get(0).artifact();
    }

    /**
     * Every provider that {@code context} (may be null) or the core's class loader finds, each class once: a module
     * deployed in an application is seen by the application's loader, one beside the core by the core's. A provider
     * that cannot be loaded (another copy of the core beside it, say) is left out with a warning: its keys are then
     * warned about as unknown, and nothing else changes.
     */
    static List<KeyProvider> discovered(ClassLoader context) {
        Set<String> seen = new TreeSet<>();
        List<KeyProvider> found = new ArrayList<>();
        ClassLoader own = KeyCatalogue.class.getClassLoader();
        for (ClassLoader loader : context == null || context == own ? List.of(own) : List.of(context, own)) {
            Iterator<KeyProvider> providers = ServiceLoader.load(KeyProvider.class, loader).iterator();
            for (int failures = 0; failures < MAX_FAILURES; ) {
                KeyProvider provider;
                try {
                    if (!providers.hasNext()) {
                        break;
                    }
                    provider = providers.next();
                } catch (ServiceConfigurationError e) {
                    failures++;
                    System.getLogger(KeyCatalogue.class.getName()).log(System.Logger.Level.WARNING,
                            "ratelimit: a module's configuration keys cannot be listed, they will be warned about as "
                                    + "unknown: " + e.getMessage());
                    continue;
                }
                if (seen.add(provider.getClass().getName())) {
                    found.add(provider);
                }
            }
        }
        return found;
    }

    /**
     * Every key, in the reference page's order, aliases included: an alias is listed as a key whose default says which
     * key applies.
     */
    public List<Key> keys() {
        return keys;
    }

    /** The aliases the modules keep working. */
    public List<Alias> aliases() {
        return aliases;
    }

    /** The older names of {@code key}, in the catalogue's order; empty when it has none. */
    public List<String> aliasesOf(String key) {
        return aliasesByKey.getOrDefault(key, List.of());
    }

    /**
     * The names of the keys without a limit's or a plan's name in them ({@code <name>}, {@code <plan>}), aliases
     * included, sorted: the keys that a configuration sets exactly as they are written here.
     */
    public Set<String> fixedNames() {
        Set<String> names = new TreeSet<>();
        for (Key key : keys) {
            if (key.name().indexOf('<') < 0) {
                names.add(key.name());
            }
        }
        return names;
    }

    /** The names of the keys (aliases included) that {@code artifact} reads (e.g. {@code ratelimit-core}), sorted. */
    public Set<String> namesReadBy(String artifact) {
        Set<String> names = new TreeSet<>();
        for (Key key : keys) {
            if (key.artifact().equals(artifact)) {
                names.add(key.name());
            }
        }
        return names;
    }
}
