package dev.ratelimit.redis.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.config.KeyCatalogue;
import dev.ratelimit.core.config.KeyCatalogue.Key;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.junit.jupiter.api.Test;

/**
 * The keys {@link RedisSettings} reads are the ones the configuration reference ({@link KeyCatalogue}, and
 * {@code docs/configuration.md} generated from it) gives to {@code ratelimit-redis}, with the defaults the code uses.
 */
class RedisKeysInTheReferenceTest {


    @Test
    void theRedisKeysAreTheOnesTheReferenceLists() {
        Recording source = new Recording(Map.of("ratelimit.redis.uri", "redis://127.0.0.1:6379",
                "ratelimit.redis.cluster", "true", "ratelimit.redis.key-prefix", "app:"));
        RedisSettings.load(config(source));
        RedisSettings.load(config(new Recording(Map.of())));
        assertThat(source.asked).as("the keys RedisSettings reads").isEqualTo(KeyCatalogue.namesReadBy("ratelimit-redis"));
    }

    @Test
    void theReferencesDefaultsAreTheOnesRedisSettingsUse() {
        RedisSettings unset = RedisSettings.load(config(new Recording(Map.of())));
        for (Key key : KeyCatalogue.keys()) {
            if (key.artifact().equals("ratelimit-redis") && key.defaultValue() != null) {
                Map<String, String> values = new HashMap<>();
                values.put(key.name(), key.defaultValue());
                assertThat(RedisSettings.load(config(new Recording(values))))
                        .as("%s=%s (its default in the reference)", key.name(), key.defaultValue()).isEqualTo(unset);
            }
        }
    }

    private static Config config(ConfigSource source) {
        return new SmallRyeConfigBuilder().withSources(source).build();
    }

    /** A configuration source that notes every {@code ratelimit.*} key asked for. */
    private static final class Recording implements ConfigSource {
        private final Map<String, String> values;
        final Set<String> asked = new TreeSet<>();

        Recording(Map<String, String> values) {
            this.values = values;
        }

        @Override
        public Set<String> getPropertyNames() {
            return values.keySet();
        }

        @Override
        public String getValue(String name) {
            if (name.startsWith("ratelimit.")) {
                asked.add(name);
            }
            return values.get(name);
        }

        @Override
        public String getName() {
            return "recording";
        }

        @Override
        public int getOrdinal() {
            return 500;
        }
    }
}
