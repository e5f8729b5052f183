package dev.ratelimit.internal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitScope;
import dev.ratelimit.internal.resolve.InvalidRateLimitException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigValue;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.eclipse.microprofile.config.spi.Converter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RateLimitSettingsTest {

    @Test
    void defaultsApplyWhenNothingIsConfigured() {
        RateLimitSettings settings = RateLimitSettings.load(config());

        assertThat(settings.partitionHeader()).isNull();
        assertThat(settings.maxTrackedPartitions()).isEqualTo(10_000);
        assertThat(settings.global()).isNull();
    }

    @Test
    void globalLimitTakesItsDefaultsForWindowNameAndScope() {
        RateLimitSettings settings = RateLimitSettings.load(config("ratelimit.global.permit-limit", "1000"));

        assertThat(settings.global()).isEqualTo(new RateLimitPolicy("application", 1000, 60, RateLimitScope.TRANSPORT));
    }

    @Test
    void everyKeyIsRead() {
        RateLimitSettings settings = RateLimitSettings.load(config(
                "ratelimit.partition-header", "X-Api-Key",
                "ratelimit.max-tracked-partitions", "250",
                "ratelimit.global.permit-limit", "7",
                "ratelimit.global.window-seconds", "3600",
                "ratelimit.global.name", "tenant.all",
                "ratelimit.global.scope", "principal"));

        assertThat(settings.partitionHeader()).isEqualTo("X-Api-Key");
        assertThat(settings.maxTrackedPartitions()).isEqualTo(250);
        assertThat(settings.global()).isEqualTo(new RateLimitPolicy("tenant.all", 7, 3600, RateLimitScope.PRINCIPAL));
    }

    @Test
    void valuesAreStrippedAndBlankValuesCountAsUnset() {
        RateLimitSettings settings = RateLimitSettings.load(config(
                "ratelimit.partition-header", "   ",
                "ratelimit.max-tracked-partitions", " 42 ",
                "ratelimit.global.permit-limit", " 5 ",
                "ratelimit.global.name", ""));

        assertThat(settings.partitionHeader()).isNull();
        assertThat(settings.maxTrackedPartitions()).isEqualTo(42);
        assertThat(settings.global()).isEqualTo(new RateLimitPolicy("application", 5, 60, RateLimitScope.TRANSPORT));
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
        "ratelimit.max-tracked-partitions | abc",
        "ratelimit.max-tracked-partitions | 0",
        "ratelimit.max-tracked-partitions | -5",
        "ratelimit.max-tracked-partitions | 1.5",
        "ratelimit.max-tracked-partitions | 99999999999",
        "ratelimit.global.permit-limit    | -1",
        "ratelimit.global.permit-limit    | 0",
        "ratelimit.global.permit-limit    | lots",
        "ratelimit.global.window-seconds  | 0",
        "ratelimit.global.window-seconds  | -60",
        "ratelimit.global.window-seconds  | 31536001",
        "ratelimit.global.window-seconds  | 1m",
        "ratelimit.global.name            | has space",
        "ratelimit.global.name            | a:b",
        "ratelimit.global.scope           | EVERYWHERE",
        "ratelimit.partition-header       | X Api Key",
        "ratelimit.partition-header       | X-Api-Key:"})
    void malformedValueFailsStartUpNamingTheKeyAndTheValue(String key, String value) {
        Map<String, String> values = new HashMap<>();
        values.put("ratelimit.global.permit-limit", "100");
        values.put(key, value);

        assertThatThrownBy(() -> RateLimitSettings.load(new MapConfig(values)))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining(key)
                .hasMessageContaining("\"" + value + "\"");
    }

    @Test
    void malformedMaxTrackedPartitionsMessageSaysWhatWasExpected() {
        assertThatThrownBy(() -> RateLimitSettings.load(config("ratelimit.max-tracked-partitions", "abc")))
                .hasMessage("ratelimit configuration: ratelimit.max-tracked-partitions must be an integer >= 1, was \"abc\"");
    }

    @Test
    void negativeGlobalLimitMessageSaysWhatWasExpected() {
        assertThatThrownBy(() -> RateLimitSettings.load(config("ratelimit.global.permit-limit", "-10")))
                .hasMessage("ratelimit configuration: ratelimit.global.permit-limit must be an integer >= 1, was \"-10\"");
    }

    @Test
    void badScopeMessageNamesTheChoices() {
        assertThatThrownBy(() -> RateLimitSettings.load(config(
                "ratelimit.global.permit-limit", "10", "ratelimit.global.scope", "global")))
                .hasMessage("ratelimit configuration: ratelimit.global.scope must be TRANSPORT or PRINCIPAL, was \"global\"");
    }

    /**
     * SPEC 8: a malformed value fails start-up. The global window, name and scope are malformed whether
     * or not the global permit limit is set (a deployment that sets it later must not discover then
     * that its window was never valid).
     */
    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
        "ratelimit.global.window-seconds | abc",
        "ratelimit.global.window-seconds | 0",
        "ratelimit.global.name           | has space",
        "ratelimit.global.scope          | EVERYWHERE"})
    void malformedGlobalValueFailsStartUpEvenWithoutAGlobalLimit(String key, String value) {
        assertThatThrownBy(() -> RateLimitSettings.load(config(key, value)))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining(key)
                .hasMessageContaining("\"" + value + "\"");
    }

    private static Config config(String... keysAndValues) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            values.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return new MapConfig(values);
    }

    /** A MicroProfile Config holding strings in a map, enough for {@link RateLimitSettings#load}. */
    private record MapConfig(Map<String, String> values) implements Config {

        @Override
        public <T> Optional<T> getOptionalValue(String propertyName, Class<T> propertyType) {
            if (propertyType != String.class) {
                throw new UnsupportedOperationException("only String values here, asked for " + propertyType);
            }
            return Optional.ofNullable(values.get(propertyName)).map(propertyType::cast);
        }

        @Override
        public <T> T getValue(String propertyName, Class<T> propertyType) {
            return getOptionalValue(propertyName, propertyType)
                    .orElseThrow(() -> new NoSuchElementException(propertyName));
        }

        @Override
        public ConfigValue getConfigValue(String propertyName) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Iterable<String> getPropertyNames() {
            return List.copyOf(values.keySet());
        }

        @Override
        public Iterable<ConfigSource> getConfigSources() {
            return List.of();
        }

        @Override
        public <T> Optional<Converter<T>> getConverter(Class<T> forType) {
            return Optional.empty();
        }

        @Override
        public <T> T unwrap(Class<T> type) {
            throw new IllegalArgumentException("cannot unwrap to " + type);
        }
    }
}
