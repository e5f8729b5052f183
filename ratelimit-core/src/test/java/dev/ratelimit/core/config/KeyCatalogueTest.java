package dev.ratelimit.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.config.KeyCatalogue.Key;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reference ({@link KeyCatalogue}, and the page generated from it) holds every key the engine's settings read, and
 * only those, with the defaults the code really uses: a recording {@link SettingsSource} notes every key that
 * {@link RateLimitSettings}, {@link AdminSettings} and {@link LimitsFile} ask for across a few configurations. And the
 * core's catalogue is the core's keys: a module's keys and older names come from its {@link KeyProvider}.
 */
class KeyCatalogueTest {

    /** The catalogue without any module's keys. */
    private static final KeyCatalogue CORE = KeyCatalogue.of(List.of());

    /** The catalogue's name of {@code key}: the pattern it matches, {@code <name>} and {@code <plan>} standing for any name. */
    static Optional<String> entryFor(String key) {
        String found = null;
        for (Key entry : CORE.keys()) {
            String regex = Pattern.quote(entry.name()).replace("<name>", "\\E.+\\Q").replace("<plan>", "\\E.+\\Q");
            if (key.matches(regex)) {
                assertThat(found).as("%s matches both %s and %s", key, found, entry.name()).isNull();
                found = entry.name();
            }
        }
        return Optional.ofNullable(found);
    }

    @Test
    void everyKeyTheSettingsReadIsInTheReferenceAndEveryReferencedKeyIsRead() {
        Set<String> asked = new TreeSet<>();
        for (Map<String, String> configuration : configurations()) {
            Recording source = new Recording(configuration);
            RateLimitSettings settings = RateLimitSettings.load(source);
            RateLimitPolicy declared = new RateLimitPolicy("default", 3, 60, RateLimitAlgorithm.SLIDING_WINDOW);
            settings.effective(declared, null);
            for (Plan plan : settings.plans()) {
                settings.effective(declared, plan);
            }
            settings.configuredLimits();
            settings.unknownKeys(Set.of("default"));
            AdminSettings.load(source);
            LimitsFile.refreshSeconds(source, LimitsFile.path(source));
            asked.addAll(source.asked);
        }
        Set<String> readAs = new TreeSet<>();
        for (String key : asked) {
            assertThat(key).as("a key the library reads").startsWith("ratelimit.");
            Optional<String> entry = entryFor(key);
            assertThat(entry).as("the library reads %s: KeyCatalogue (and docs/configuration.md) must list it", key)
                    .isPresent();
            readAs.add(entry.get());
        }
        assertThat(readAs).as("the keys of KeyCatalogue that ratelimit-core reads").isEqualTo(CORE.namesReadBy("ratelimit-core"));
    }

    @Test
    void everyDefaultInTheReferenceIsWhatTheSettingsUseWhenTheKeyIsUnset() {
        // a partition header and a global limit, so that partition-by's default and the global limit's values apply
        Map<String, String> base = Map.of("ratelimit.partition-header", "X-Api-Key", "ratelimit.global.permit-limit", "5");
        int checked = 0;
        for (Key key : CORE.keys()) {
            if (!key.artifact().equals("ratelimit-core") || key.defaultValue() == null || key.name().contains("<")) {
                continue;
            }
            Map<String, String> set = new HashMap<>(base);
            set.put(key.name(), key.defaultValue());
            assertThat(effect(set)).as("%s=%s (its default in the reference)", key.name(), key.defaultValue())
                    .isEqualTo(effect(base));
            checked++;
        }
        assertThat(checked).isGreaterThanOrEqualTo(15);
    }

    @Test
    void theDefaultsGivenInWordsHoldToo() {
        RateLimitSettings gold = RateLimitSettings.of(Map.of("ratelimit.plans", "gold"));
        assertThat(gold.plans().get(0).role()).as("ratelimit.plans.<plan>.role: the plan's name").isEqualTo("gold");
        assertThat(LimitsFile.refreshSeconds(new Recording(Map.of()), Path.of("limits.properties")))
                .as("ratelimit.refresh-seconds with ratelimit.limits-file set").isEqualTo(10);
        RateLimitSettings older = RateLimitSettings.of(Map.of());
        assertThat(older.timeoutMillis()).isEqualTo(RateLimitSettings.DEFAULT_TIMEOUT_MILLIS);
        assertThat(RateLimitSettings.load(new Recording(Map.of(ExampleStoreKeys.TIMEOUT_MILLIS, "900")),
                        ExampleStoreKeys.catalogue()).timeoutMillis())
                .as("a module's older spelling, read when ratelimit.store.timeout-millis is unset").isEqualTo(900);
        assertThat(RateLimitSettings.of(Map.of()).clientAddresses().describe())
                .as("ratelimit.trusted-proxies: none").isEqualTo(RateLimitSettings.of(Map.of("ratelimit.trusted-proxies", ""))
                        .clientAddresses().describe());
    }

    @Test
    void theCoresCatalogueHasTheCoresKeysOnly() {
        assertThat(CORE.keys()).isNotEmpty().allSatisfy(key -> assertThat(key.artifact()).as(key.name())
                .isEqualTo("ratelimit-core"));
        assertThat(CORE.aliases()).isEmpty();
        assertThat(KeyCatalogue.installed().keys()).as("no module on the core's own class path").isEqualTo(CORE.keys());
    }

    @Test
    void aModulesKeysAndOlderNamesComeFromItsProvider() {
        KeyCatalogue catalogue = ExampleStoreKeys.catalogue();

        assertThat(catalogue.namesReadBy(ExampleStoreKeys.ARTIFACT)).containsExactly(ExampleStoreKeys.ON_FAILURE,
                ExampleStoreKeys.THREADS, ExampleStoreKeys.TIMEOUT_MILLIS, ExampleStoreKeys.URI);
        assertThat(catalogue.aliasesOf(RateLimitSettings.STORE_TIMEOUT_MILLIS)).containsExactly(ExampleStoreKeys.TIMEOUT_MILLIS);
        assertThat(catalogue.aliasesOf(RateLimitSettings.STORE_RETRY_MILLIS)).isEmpty();
        assertThat(catalogue.fixedNames()).containsAll(CORE.fixedNames()).contains(ExampleStoreKeys.URI,
                ExampleStoreKeys.TIMEOUT_MILLIS);
        Key older = catalogue.keys().stream().filter(k -> k.name().equals(ExampleStoreKeys.TIMEOUT_MILLIS)).findFirst()
                .orElseThrow();
        assertThat(older).isEqualTo(new Key(ExampleStoreKeys.TIMEOUT_MILLIS, KeyCatalogue.Section.STORES,
                "integer, milliseconds, 1 .. 60000", null, "`ratelimit.store.timeout-millis` applies", false,
                ExampleStoreKeys.ARTIFACT,
                "The older spelling of `ratelimit.store.timeout-millis`, read when that key is unset."));
        List<String> stores = catalogue.keys().stream().filter(k -> k.section() == KeyCatalogue.Section.STORES)
                .map(Key::name).toList();
        assertThat(stores.subList(stores.size() - 4, stores.size())).as("a module's keys after the core's, in its order")
                .containsExactly(ExampleStoreKeys.URI, ExampleStoreKeys.THREADS, ExampleStoreKeys.TIMEOUT_MILLIS,
                        ExampleStoreKeys.ON_FAILURE);
        assertThat(catalogue.keys().get(catalogue.keys().size() - 1).section()).as("the sections keep their order")
                .isEqualTo(KeyCatalogue.Section.TESTS);
    }

    @Test
    void aProviderIsFoundThroughTheContextClassLoader(@TempDir Path services) throws IOException {
        Path file = services.resolve("META-INF/services/" + KeyProvider.class.getName());
        Files.createDirectories(file.getParent());
        Files.writeString(file, ExampleStoreKeys.class.getName() + "\n");
        try (URLClassLoader application = new URLClassLoader(new URL[] {services.toUri().toURL()},
                KeyCatalogueTest.class.getClassLoader())) {
            assertThat(KeyCatalogue.discovered(application)).singleElement().isInstanceOf(ExampleStoreKeys.class);
        }
        assertThat(KeyCatalogue.discovered(null)).as("the core's own class loader: no module").isEmpty();
    }

    @Test
    void aProviderThatCannotBeLoadedIsLeftOutAndTheOthersAreFound(@TempDir Path services) throws IOException {
        Path file = services.resolve("META-INF/services/" + KeyProvider.class.getName());
        Files.createDirectories(file.getParent());
        Files.writeString(file, "dev.ratelimit.example.Missing\n" + ExampleStoreKeys.class.getName() + "\n");
        try (URLClassLoader application = new URLClassLoader(new URL[] {services.toUri().toURL()},
                KeyCatalogueTest.class.getClassLoader())) {
            assertThat(KeyCatalogue.discovered(application)).singleElement().isInstanceOf(ExampleStoreKeys.class);
        }
    }

    @Test
    void aKeyListedTwiceFailsNamingItAndBothArtifacts() {
        KeyProvider twice = () -> List.of(new Key("ratelimit.store.retry-millis", KeyCatalogue.Section.STORES, "text",
                null, null, false, "ratelimit-other", "Again."));

        assertThatThrownBy(() -> KeyCatalogue.of(List.of(twice))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("ratelimit.store.retry-millis of ratelimit-other is listed by ratelimit-core already");
        assertThatThrownBy(() -> KeyCatalogue.of(List.of(new ExampleStoreKeys(), new ExampleStoreKeys())))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(ExampleStoreKeys.URI);
    }

    @Test
    void anOlderNameMustStandForAKeyTheCoresSettingsRead() {
        for (String target : List.of("ratelimit.nothing", "ratelimit.admin.role", "ratelimit.limits-file",
                "ratelimit.limits.<name>.mode", ExampleStoreKeys.URI)) {
            KeyProvider provider = new KeyProvider() {
                @Override
                public List<Key> keys() {
                    return new ExampleStoreKeys().keys();
                }

                @Override
                public List<KeyCatalogue.Alias> aliases() {
                    return List.of(new KeyCatalogue.Alias("ratelimit.example.older", target, ExampleStoreKeys.ARTIFACT));
                }
            };
            assertThatThrownBy(() -> KeyCatalogue.of(List.of(provider))).as(target)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("the alias ratelimit.example.older stands for " + target + ", which is no key");
        }
    }

    @Test
    void aModulesKeyStartsWithTheLibrarysPrefix() {
        KeyProvider outside = () -> List.of(new Key("example.uri", KeyCatalogue.Section.STORES, "a URI", null, null,
                false, "ratelimit-other", "Elsewhere."));

        assertThatThrownBy(() -> KeyCatalogue.of(List.of(outside))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("example.uri does not start with ratelimit.");
    }

    /** What a configuration makes of everything the settings, the admin API and live values read. */
    private static String effect(Map<String, String> configuration) {
        Recording source = new Recording(configuration);
        RateLimitSettings s = RateLimitSettings.load(source);
        return List.of(s.enabled(), s.mode(), String.valueOf(s.partitionHeader()), s.partitionBy(),
                s.clientAddresses().describe(), s.maxTrackedPartitions(), String.valueOf(s.global()), s.globalScope(),
                s.plans(), s.timeoutMillis(), s.onFailure(), s.manualClock(), AdminSettings.load(source),
                LimitsFile.refreshSeconds(source, LimitsFile.path(source))).toString();
    }

    /** A configuration with nothing set, and one with every key set. */
    private static List<Map<String, String>> configurations() {
        List<Map<String, String>> all = new ArrayList<>();
        all.add(Map.of());
        Map<String, String> every = new LinkedHashMap<>();
        every.put("ratelimit.enabled", "true");
        every.put("ratelimit.mode", "shadow");
        every.put("ratelimit.partition-header", "X-Api-Key");
        every.put("ratelimit.partition-by", "principal,header,address");
        every.put("ratelimit.trusted-proxies", "10.0.0.0/8");
        every.put("ratelimit.ipv4-prefix", "24");
        every.put("ratelimit.ipv6-prefix", "56");
        every.put("ratelimit.max-tracked-partitions", "500");
        every.put("ratelimit.key-secret", "a secret of at least sixteen characters");
        every.put("ratelimit.global.permit-limit", "1000");
        every.put("ratelimit.global.window-seconds", "30");
        every.put("ratelimit.global.name", "everyone");
        every.put("ratelimit.global.scope", "PRINCIPAL");
        every.put("ratelimit.global.algorithm", "TOKEN_BUCKET");
        for (String property : List.of("permit-limit=10", "window-seconds=20", "algorithm=STRICT_WINDOW", "mode=enforce",
                "max-wait-millis=100", "per=application", "failures-only=true", "failure-statuses=401,403")) {
            String[] kv = property.split("=");
            every.put("ratelimit.limits.default." + kv[0], kv[1]);
        }
        every.put("ratelimit.plans", "gold");
        every.put("ratelimit.plans.gold.role", "vip");
        for (String property : List.of("permit-limit=10", "window-seconds=20", "algorithm=STRICT_WINDOW", "mode=off")) {
            String[] kv = property.split("=");
            every.put("ratelimit.plans.gold.limits.default." + kv[0], kv[1]);
        }
        every.put("ratelimit.store.timeout-millis", "100");
        every.put("ratelimit.store.on-failure", "allow");
        every.put("ratelimit.test.manual-clock", "true");
        every.put("ratelimit.limits-file", "limits.properties");
        every.put("ratelimit.refresh-seconds", "5");
        every.put("ratelimit.admin.enabled", "true");
        every.put("ratelimit.admin.role", "admin");
        every.put("ratelimit.admin.path", "/ops/limits");
        all.add(every);
        return all;
    }

    /** A source over a map that notes every key it is asked for. */
    private static final class Recording implements SettingsSource {
        private final Map<String, String> values;
        final Set<String> asked = new TreeSet<>();

        Recording(Map<String, String> values) {
            this.values = values;
        }

        @Override
        public Optional<String> value(String key) {
            asked.add(key);
            return Optional.ofNullable(values.get(key));
        }

        @Override
        public Iterable<String> keys() {
            return values.keySet();
        }
    }
}
