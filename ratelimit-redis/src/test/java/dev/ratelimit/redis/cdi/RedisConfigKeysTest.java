package dev.ratelimit.redis.cdi;

import dev.ratelimit.core.config.KeyProvider;
import dev.ratelimit.core.config.SettingsSource;
import dev.ratelimit.core.testing.ModuleKeysContract;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * The keys {@link RedisSettings} reads are the ones {@link RedisConfigKeys} gives the configuration reference, with the
 * defaults the code uses, and its older names of the store keys still work ({@link ModuleKeysContract}).
 */
class RedisConfigKeysTest extends ModuleKeysContract {

    @Override
    protected KeyProvider provider() {
        return new RedisConfigKeys();
    }

    @Override
    protected Object load(SettingsSource source) {
        return RedisSettings.load(new SmallRyeConfigBuilder().withSources(new Source(source)).build());
    }

    @Override
    protected Map<String, String> everyKeySet() {
        return Map.of(RedisSettings.URI, "redis://127.0.0.1:6379", RedisSettings.CLUSTER, "true",
                RedisSettings.KEY_PREFIX, "app:", RedisSettings.CLIENT, "lettuce");
    }

    @Override
    protected int expectedDefaults() {
        return 3; // cluster, key-prefix, client
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
