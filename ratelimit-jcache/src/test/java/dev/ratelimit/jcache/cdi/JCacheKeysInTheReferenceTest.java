package dev.ratelimit.jcache.cdi;

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
 * The keys {@link JCacheSettings} reads are the ones the configuration reference ({@link KeyCatalogue}, and
 * {@code docs/configuration.md} generated from it) gives to {@code ratelimit-jcache}, with the defaults the code uses:
 * a configuration source notes every key the settings ask for.
 */
class JCacheKeysInTheReferenceTest {

    @Test
    void theJCacheKeysAreTheOnesTheReferenceLists() {
        Recording source = new Recording(Map.of(JCacheSettings.CACHE, "ratelimit",
                JCacheSettings.PROVIDER, "com.hazelcast.cache.HazelcastMemberCachingProvider",
                JCacheSettings.URI, "classpath:hazelcast.xml", JCacheSettings.MODE, "cas",
                JCacheSettings.EXPIRY_SECONDS, "600", JCacheSettings.THREADS, "4"));
        JCacheSettings.load(config(source));
        Recording unset = new Recording(Map.of());
        JCacheSettings.load(config(unset));

        assertThat(source.asked).as("the keys JCacheSettings reads").isEqualTo(KeyCatalogue.namesReadBy("ratelimit-jcache"));
        assertThat(unset.asked).as("the keys JCacheSettings reads with nothing set").isEqualTo(source.asked);
    }

    @Test
    void theReferencesDefaultsAreTheOnesJCacheSettingsUse() {
        JCacheSettings unset = JCacheSettings.load(config(new Recording(Map.of())));
        int checked = 0;
        for (Key key : KeyCatalogue.keys()) {
            if (key.artifact().equals("ratelimit-jcache") && key.defaultValue() != null) {
                Map<String, String> values = new HashMap<>();
                values.put(key.name(), key.defaultValue());
                assertThat(JCacheSettings.load(config(new Recording(values))))
                        .as("%s=%s (its default in the reference)", key.name(), key.defaultValue()).isEqualTo(unset);
                checked++;
            }
        }
        assertThat(checked).as("mode, expiry-seconds and threads have a default").isEqualTo(3);
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
