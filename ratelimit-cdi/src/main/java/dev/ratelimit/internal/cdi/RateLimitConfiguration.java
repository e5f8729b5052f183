package dev.ratelimit.internal.cdi;

import dev.ratelimit.internal.config.RateLimitSettings;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.ConfigProvider;

/** The settings, read from MicroProfile Config once, when the application starts. */
@ApplicationScoped
public class RateLimitConfiguration {

    private RateLimitSettings settings;

    @PostConstruct
    void load() {
        settings = RateLimitSettings.load(ConfigProvider.getConfig(RateLimitConfiguration.class.getClassLoader()));
    }

    public RateLimitSettings settings() {
        return settings;
    }
}
