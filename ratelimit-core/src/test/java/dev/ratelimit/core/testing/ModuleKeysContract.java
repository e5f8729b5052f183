package dev.ratelimit.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.core.config.KeyCatalogue;
import dev.ratelimit.core.config.KeyCatalogue.Alias;
import dev.ratelimit.core.config.KeyCatalogue.Key;
import dev.ratelimit.core.config.KeyProvider;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.config.SettingsSource;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * What every module that reads {@code ratelimit.*} keys of its own owes the configuration reference, run by each with
 * its {@link KeyProvider}: the keys its settings read are the ones the provider lists, with the defaults the settings
 * use; the provider is found on the class path ({@code META-INF/services}), and the core's own catalogue has none of
 * them; a configuration that sets them is not warned about, a typo in one is; an older name the module keeps stands
 * for its key; and the generated page has the module's rows.
 */
public abstract class ModuleKeysContract {

    /** The module's provider, as {@code META-INF/services} names it. */
    protected abstract KeyProvider provider();

    /**
     * The module's settings read from {@code source}, as the module reads them when the application deploys: settings
     * that compare equal for equal configurations (a record does).
     */
    protected abstract Object load(SettingsSource source);

    /** A configuration that sets every key of the module to a valid value, none of them its default. */
    protected abstract Map<String, String> everyKeySet();

    @Test
    void theKeysTheModuleReadsAreTheOnesItsProviderLists() {
        Recording every = new Recording(everyKeySet());
        load(every);
        Recording unset = new Recording(Map.of());
        load(unset);

        Set<String> listed = new TreeSet<>();
        for (Key key : provider().keys()) {
            listed.add(key.name());
        }
        assertThat(every.asked).as("the keys the module's settings read").isEqualTo(listed);
        assertThat(unset.asked).as("the keys they read with nothing set").isEqualTo(listed);
        assertThat(everyKeySet().keySet()).as("everyKeySet() sets every key").isEqualTo(listed);
    }

    @Test
    void theProvidersDefaultsAreTheOnesTheModuleUses() {
        Object unset = load(new Recording(Map.of()));
        int defaults = 0;
        for (Key key : provider().keys()) {
            String value = everyKeySet().get(key.name());
            assertThat(load(new Recording(Map.of(key.name(), value)))).as("%s=%s (not its default)", key.name(), value)
                    .isNotEqualTo(unset);
            if (key.defaultValue() != null) {
                assertThat(load(new Recording(Map.of(key.name(), key.defaultValue()))))
                        .as("%s=%s (its default in the reference)", key.name(), key.defaultValue()).isEqualTo(unset);
                defaults++;
            }
        }
        assertThat(defaults).as("keys with a default").isEqualTo(expectedDefaults());
    }

    /** How many of the module's keys have a default (so that a lost default does not pass unseen). */
    protected abstract int expectedDefaults();

    @Test
    void theModulesKeysComeFromItsProviderFoundOnTheClassPath() {
        String artifact = artifact();
        KeyCatalogue installed = KeyCatalogue.installed();
        KeyCatalogue core = KeyCatalogue.of(List.of());

        assertThat(installed.keys()).as("the installed catalogue").containsAll(provider().keys());
        assertThat(installed.aliases()).containsAll(provider().aliases());
        Set<String> names = names();
        assertThat(installed.namesReadBy(artifact)).as("what the catalogue gives to %s", artifact).isEqualTo(names);
        assertThat(core.fixedNames()).as("the core's own catalogue").doesNotContainAnyElementsOf(names);
        assertThat(core.namesReadBy(artifact)).isEmpty();
        for (Key key : provider().keys()) {
            assertThat(key.artifact()).as(key.name()).isEqualTo(artifact);
        }
        for (Alias alias : provider().aliases()) {
            assertThat(alias.artifact()).as(alias.name()).isEqualTo(artifact);
        }
    }

    @Test
    void aConfigurationThatSetsTheModulesKeysIsNotWarnedAboutATypoInOneIs() {
        Map<String, String> values = new HashMap<>(everyKeySet());
        Map<String, String> typos = new HashMap<>();
        for (Key key : provider().keys()) {
            typos.put(key.name() + "s", "a value");
            values.put(environmentName(key.name()), "a value");
        }
        for (Alias alias : provider().aliases()) {
            values.put(alias.name(), defaultOf(alias.standsFor()));
        }

        assertThat(RateLimitSettings.of(values).unknownKeys(Set.of())).as("warnings for %s", values.keySet()).isEmpty();
        values.putAll(typos);
        List<String> warnings = RateLimitSettings.of(values).unknownKeys(Set.of());
        assertThat(warnings).hasSize(typos.size());
        for (String typo : typos.keySet()) {
            assertThat(warnings).contains(typo + " is not a ratelimit setting");
        }
    }

    @Test
    void anOlderNameStandsForItsKeyWhenTheKeyIsUnset() {
        for (Alias alias : provider().aliases()) {
            Recording source = new Recording(Map.of(alias.name(), defaultOf(alias.standsFor())));
            RateLimitSettings.load(source);
            assertThat(source.asked).as("read in place of %s", alias.standsFor()).contains(alias.name());

            assertThatThrownBy(() -> RateLimitSettings.of(Map.of(alias.name(), "not a value")))
                    .as("a malformed %s", alias.name()).isInstanceOf(InvalidRateLimitException.class)
                    .hasMessageContaining(alias.name()).hasMessageContaining("\"not a value\"");
            RateLimitSettings.of(Map.of(alias.name(), "not a value", alias.standsFor(), defaultOf(alias.standsFor())));
        }
    }

    @Test
    void theConfigurationPageHasTheModulesRows() {
        ConfigurationReference.assertRowsOnThePage(Path.of("..", "docs", "configuration.md"), KeyCatalogue.installed(),
                artifact());
    }

    private String artifact() {
        List<Key> keys = provider().keys();
        assertThat(keys).as("the provider's keys").isNotEmpty();
        return keys.get(0).artifact();
    }

    private Set<String> names() {
        Set<String> names = new TreeSet<>();
        provider().keys().forEach(key -> names.add(key.name()));
        provider().aliases().forEach(alias -> names.add(alias.name()));
        return names;
    }

    private static String defaultOf(String coreKey) {
        for (Key key : KeyCatalogue.of(List.of()).keys()) {
            if (key.name().equals(coreKey)) {
                assertThat(key.defaultValue()).as("the default of %s", coreKey).isNotNull();
                return key.defaultValue();
            }
        }
        throw new AssertionError(coreKey + " is no key of the core");
    }

    /** How an environment variable spells {@code key}: capitals, {@code _} for every other character. */
    private static String environmentName(String key) {
        return key.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
    }

    /** A source over a map that notes every {@code ratelimit.*} key asked for. */
    private static final class Recording implements SettingsSource {
        private final Map<String, String> values;
        final Set<String> asked = new TreeSet<>();

        Recording(Map<String, String> values) {
            this.values = Map.copyOf(values);
        }

        @Override
        public Optional<String> value(String key) {
            if (key.startsWith("ratelimit.")) {
                asked.add(key);
            }
            return Optional.ofNullable(values.get(key));
        }

        @Override
        public Iterable<String> keys() {
            return values.keySet();
        }
    }
}
