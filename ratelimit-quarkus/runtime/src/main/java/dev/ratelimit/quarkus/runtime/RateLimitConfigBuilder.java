package dev.ratelimit.quarkus.runtime;

import io.quarkus.runtime.configuration.ConfigBuilder;
import io.smallrye.config.SmallRyeConfigBuilder;

/**
 * A {@code ratelimit.*} key that {@link RateLimitConfig} does not list is not an error: the library reads its keys
 * itself, and other modules add their own ({@code ratelimit-redis}, and what later versions bring). Without this,
 * SmallRye Config would refuse every unlisted key under a prefix that an extension maps ("does not map to any
 * root"), as Quarkus does only for its own {@code quarkus.*}; a typo in a limit's name is the library's warning.
 */
public class RateLimitConfigBuilder implements ConfigBuilder {

    @Override
    public SmallRyeConfigBuilder configBuilder(SmallRyeConfigBuilder builder) {
        return builder.withMappingIgnore("ratelimit.**");
    }
}
