package dev.ratelimit.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.cdi.RateLimitConfiguration;
import dev.ratelimit.core.config.RateLimitSettings;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Environment variables as MicroProfile Config (SmallRye's source of them) hands them over (docs/configuration.md,
 * "Mistakes"): one that stands for a key of a declared limit applies, found by the key's name; one whose limit name
 * matches no declared limit sets nothing, and is warned about naming the variable.
 */
class EnvironmentVariablesTest {

    @Test
    void aVariableNamingADeclaredLimitAppliesAndOneWithAMisspelledNameIsWarnedAbout() {
        SmallRyeConfig config = new SmallRyeConfigBuilder().withSources(new EnvConfigSource(Map.of(
                "RATELIMIT_LIMITS_LOGIN_ADDRESS_PERMIT_LIMIT", "7",
                "RATELIMIT_LIMITS_LISITNG_PERMIT_LIMIT", "5",
                "RATELIMIT_STORE_TIMEOUT_MILLIS", "120",
                "PATH", "/usr/bin"), 300)).build();

        RateLimitSettings settings = RateLimitSettings.load(RateLimitConfiguration.source(config));

        assertThat(settings.limit("login-address").permitLimit()).as("found by the key's name").isEqualTo(7);
        assertThat(settings.timeoutMillis()).isEqualTo(120);
        assertThat(settings.unknownKeys(Set.of("listing", "login-address"))).singleElement().asString()
                .startsWith("the environment variable RATELIMIT_LIMITS_LISITNG_PERMIT_LIMIT names the limit LISITNG");
    }
}
