package dev.ratelimit.jcache.cdi;

import dev.ratelimit.core.config.KeyProvider;
import dev.ratelimit.core.config.SettingsSource;
import dev.ratelimit.core.testing.ModuleKeysContract;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * The keys {@link JCacheSettings} reads are the ones {@link JCacheConfigKeys} gives the configuration reference, with the
 * defaults the code uses ({@link ModuleKeysContract}).
 */
class JCacheConfigKeysTest extends ModuleKeysContract {

    @Override
    protected KeyProvider provider() {
        return new JCacheConfigKeys();
    }

    @Override
    protected Object load(SettingsSource source) {
        return JCacheSettings.load(new SmallRyeConfigBuilder().withSources(new Source(source)).build());
    }

    @Override
    protected Map<String, String> everyKeySet() {
        return Map.of(JCacheSettings.CACHE, "ratelimit",
                JCacheSettings.PROVIDER, "com.hazelcast.cache.HazelcastMemberCachingProvider",
                JCacheSettings.URI, "classpath:hazelcast.xml", JCacheSettings.MODE, "cas",
                JCacheSettings.EXPIRY_SECONDS, "600", JCacheSettings.THREADS, "4");
    }

    @Override
    protected int expectedDefaults() {
        return 3; // mode, expiry-seconds, threads
    }

    /** MicroProfile Config over a settings source. */
    private record Source(SettingsSource source) implements ConfigSource {
        @Override
        public Set<String> getPropertyNames() {
            Set<String> names = new TreeSet<>();
            source.keys().forEach(names::add);
            return names;
        }

        @Override
        public String getValue(String name) {
            return source.value(name).orElse(null);
        }

        @Override
        public String getName() {
            return "settings";
        }

        @Override
        public int getOrdinal() {
            return 500;
        }
    }
}
