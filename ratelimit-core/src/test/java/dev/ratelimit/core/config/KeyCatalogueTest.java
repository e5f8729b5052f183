package dev.ratelimit.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.config.KeyCatalogue.Key;
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

/**
 * The reference ({@link KeyCatalogue}, and the page generated from it) holds every key the engine's settings read, and
 * only those, with the defaults the code really uses: a recording {@link SettingsSource} notes every key that
 * {@link RateLimitSettings}, {@link AdminSettings} and {@link LimitsFile} ask for across a few configurations.
 */
class KeyCatalogueTest {

    /** The catalogue's name of {@code key}: the pattern it matches, {@code <name>} and {@code <plan>} standing for any name. */
    static Optional<String> entryFor(String key) {
        String found = null;
        for (Key entry : KeyCatalogue.keys()) {
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
        assertThat(readAs).as("the keys of KeyCatalogue that ratelimit-core reads").isEqualTo(KeyCatalogue.namesReadBy("ratelimit-core"));
    }

    @Test
    void everyDefaultInTheReferenceIsWhatTheSettingsUseWhenTheKeyIsUnset() {
        // a partition header and a global limit, so that partition-by's default and the global limit's values apply
        Map<String, String> base = Map.of("ratelimit.partition-header", "X-Api-Key", "ratelimit.global.permit-limit", "5");
        int checked = 0;
        for (Key key : KeyCatalogue.keys()) {
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
        assertThat(RateLimitSettings.of(Map.of("ratelimit.redis.timeout-millis", "900")).timeoutMillis())
                .as("the older spelling, read when ratelimit.store.timeout-millis is unset").isEqualTo(900);
        assertThat(RateLimitSettings.of(Map.of()).clientAddresses().describe())
                .as("ratelimit.trusted-proxies: none").isEqualTo(RateLimitSettings.of(Map.of("ratelimit.trusted-proxies", ""))
                        .clientAddresses().describe());
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

    /** A configuration with nothing set, one with every key set, and one with the older spellings. */
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
        all.add(Map.of("ratelimit.redis.timeout-millis", "100", "ratelimit.redis.on-failure", "local"));
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
