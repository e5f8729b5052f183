package dev.ratelimit.redis.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.InvalidRateLimitException;
import dev.ratelimit.redis.RedisRateLimitStore;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.time.Duration;
import java.util.Map;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RedisSettingsTest {

    @Test
    void defaultsWhenNothingIsSet() {
        assertThat(RedisSettings.load(config(Map.of()))).isEqualTo(new RedisSettings(null, false, "ratelimit:"));
    }

    @Test
    void readsEveryKey() {
        RedisSettings settings = RedisSettings.load(config(Map.of(
                "ratelimit.redis.uri", " rediss://:pw@redis.example:6380/2 ",
                "ratelimit.redis.cluster", "TRUE",
                "ratelimit.redis.key-prefix", "shop:rl:")));
        assertThat(settings).isEqualTo(new RedisSettings("rediss://:pw@redis.example:6380/2", true, "shop:rl:"));
    }

    @Test
    void theStoreItBuildsTakesTheEnginesTimeout() {
        RedisSettings settings = new RedisSettings("redis://127.0.0.1:1", false, "shop:");
        try (var store = settings.storeBuilder(Duration.ofMillis(40)).build()) {
            assertThat(store.toString()).isEqualTo(
                    "RedisRateLimitStore(uri=redis://127.0.0.1:1, cluster=false, client=jedis+lettuce, timeout-millis=40, key-prefix=shop:)");
        }
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "ratelimit.redis.uri|http://127.0.0.1:6379|must be a Redis URI",
            "ratelimit.redis.uri|redis://127.0.0.1:port|must be a Redis URI",
            "ratelimit.redis.uri|localhost|must be a Redis URI",
            "ratelimit.redis.key-prefix|app{1}:|without '{' or '}'",
            "ratelimit.redis.cluster|yes|true or false",
            "ratelimit.redis.client|netty|auto, jedis or lettuce"})
    void aMalformedValueFailsNamingTheKeyAndTheValue(String key, String value, String expected) {
        assertThatThrownBy(() -> RedisSettings.load(config(Map.of(key, value))))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageStartingWith("ratelimit configuration: " + key + " must be ")
                .hasMessageContaining(expected)
                .hasMessageEndingWith(", was \"" + value + "\"");
    }

    @ParameterizedTest(name = "ratelimit.redis.client={0}")
    @CsvSource({"auto,AUTO,jedis+lettuce", "Jedis,JEDIS,jedis", " lettuce ,LETTUCE,lettuce"})
    void theClientSettingChoosesWhichClientCarriesTheCalls(String value, RedisRateLimitStore.Client client, String carried) {
        RedisSettings settings = RedisSettings.load(config(Map.of("ratelimit.redis.uri", "redis://127.0.0.1:1",
                "ratelimit.redis.client", value)));
        assertThat(settings.client()).isEqualTo(client);
        try (var store = settings.storeBuilder(Duration.ofMillis(40)).build()) {
            assertThat(store.client()).isEqualTo(carried);
        }
    }

    @Test
    void aMalformedUriIsReportedWithoutItsPassword() {
        assertThatThrownBy(() -> RedisSettings.load(config(Map.of("ratelimit.redis.uri", "redis://user:hunter2@host:port"))))
                .hasMessageContaining("\"redis://***@host:port\"")
                .hasMessageNotContaining("hunter2");
    }

    private static Config config(Map<String, String> properties) {
        return new SmallRyeConfigBuilder().withSources(new PropertiesConfigSource(properties, "test", 500)).build();
    }
}
