package dev.ratelimit.cdi;

import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.config.SettingsSource;
import dev.ratelimit.core.testing.ManualClock;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The settings, read from MicroProfile Config once, when the application starts (a malformed value fails
 * the deployment naming the key and the value), and the clock the counts use: {@code System::nanoTime}, or a
 * {@link ManualClock} with {@code ratelimit.test.manual-clock=true}.
 */
@ApplicationScoped
public class RateLimitConfiguration {

    private RateLimitSettings settings;
    private LongSupplier clock;
    private ManualClock manualClock;

    @PostConstruct
    void load() {
        settings = RateLimitSettings.load(source(ConfigProvider.getConfig(RateLimitConfiguration.class.getClassLoader())));
        if (settings.manualClock()) {
            manualClock = new ManualClock();
            clock = manualClock;
        } else {
            clock = System::nanoTime;
        }
    }

    /** MicroProfile Config as the engine reads settings. */
    public static SettingsSource source(Config config) {
        return new SettingsSource() {
            @Override
            public Optional<String> value(String key) {
                return config.getOptionalValue(key, String.class);
            }

            @Override
            public Iterable<String> keys() {
                return config.getPropertyNames();
            }
        };
    }

    public RateLimitSettings settings() {
        return settings;
    }

    /** The clock of the counts, in nanoseconds. */
    public LongSupplier clock() {
        return clock;
    }

    /** The manual clock, or null unless {@code ratelimit.test.manual-clock=true}. */
    public ManualClock manualClock() {
        return manualClock;
    }
}
