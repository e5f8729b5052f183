package dev.ratelimit.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.InvalidRateLimitException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code ratelimit.admin.*} and the live values' own keys, read and validated at start-up. */
class AdminSettingsTest {

    private static SettingsSource source(Map<String, String> values) {
        return new SettingsSource() {
            @Override
            public Optional<String> value(String key) {
                return Optional.ofNullable(values.get(key));
            }

            @Override
            public Iterable<String> keys() {
                return values.keySet();
            }
        };
    }

    @Test
    void theAdminApiIsOffByDefaultAtSlashRatelimit() {
        AdminSettings admin = AdminSettings.load(source(Map.of()));
        assertThat(admin.enabled()).isFalse();
        assertThat(admin.path()).isEqualTo("/ratelimit");
    }

    @Test
    void enablingTheAdminApiWithoutARoleFailsStartUpNamingTheKey() {
        assertThatThrownBy(() -> AdminSettings.load(source(Map.of("ratelimit.admin.enabled", "true"))))
                .isInstanceOf(InvalidRateLimitException.class)
                .hasMessageContaining("ratelimit.admin.role").hasMessageContaining("ratelimit.admin.enabled=true");
    }

    @Test
    void malformedAdminValuesFailNamingTheKeyAndTheValue() {
        assertThatThrownBy(() -> AdminSettings.load(source(Map.of("ratelimit.admin.enabled", "yes"))))
                .isInstanceOf(InvalidRateLimitException.class).hasMessageContaining("ratelimit.admin.enabled")
                .hasMessageContaining("\"yes\"");
        assertThatThrownBy(() -> AdminSettings.load(source(Map.of("ratelimit.admin.path", "ops/"))))
                .isInstanceOf(InvalidRateLimitException.class).hasMessageContaining("ratelimit.admin.path")
                .hasMessageContaining("\"ops/\"");
    }

    @Test
    void anEnabledAdminApiHasItsRoleAndPath() {
        AdminSettings admin = AdminSettings.load(source(Map.of("ratelimit.admin.enabled", "true",
                "ratelimit.admin.role", "admin", "ratelimit.admin.path", "/ops/limits")));
        assertThat(admin).isEqualTo(new AdminSettings(true, "admin", "/ops/limits"));
    }

    @Test
    void refreshSecondsDefaultsToZeroOrTenWithAFileAndAMalformedValueFailsNamingKeyAndValue() {
        assertThat(LimitsFile.refreshSeconds(source(Map.of()), null)).isZero();
        assertThat(LimitsFile.refreshSeconds(source(Map.of()), Path.of("/etc/limits.properties"))).isEqualTo(10);
        assertThat(LimitsFile.refreshSeconds(source(Map.of("ratelimit.refresh-seconds", "1")), null)).isEqualTo(1);
        assertThatThrownBy(() -> LimitsFile.refreshSeconds(source(Map.of("ratelimit.refresh-seconds", "-1")), null))
                .isInstanceOf(InvalidRateLimitException.class).hasMessageContaining("ratelimit.refresh-seconds")
                .hasMessageContaining("\"-1\"");
    }

    @Test
    void onlyTheKeysOfLimitsAreLive() {
        assertThat(LimitsFile.isLive("ratelimit.limits.default.permit-limit")).isTrue();
        assertThat(LimitsFile.isLive("ratelimit.plans")).isTrue();
        assertThat(LimitsFile.isLive("ratelimit.plans.gold.role")).isTrue();
        assertThat(LimitsFile.isLive("ratelimit.mode")).isTrue();
        assertThat(LimitsFile.isLive("ratelimit.global.permit-limit")).isTrue();
        assertThat(LimitsFile.isLive("ratelimit.global.name")).isFalse();
        assertThat(LimitsFile.isLive("ratelimit.partition-header")).isFalse();
        assertThat(LimitsFile.isLive("ratelimit.enabled")).isFalse();
    }

    @Test
    void theNewKeysAreNotReportedAsUnknown() {
        RateLimitSettings settings = RateLimitSettings.of(Map.of("ratelimit.limits-file", "/x",
                "ratelimit.refresh-seconds", "5", "ratelimit.admin.enabled", "true", "ratelimit.admin.role", "admin",
                "ratelimit.admin.path", "/ratelimit"));
        assertThat(settings.unknownKeys(java.util.Set.of())).isEmpty();
    }
}
