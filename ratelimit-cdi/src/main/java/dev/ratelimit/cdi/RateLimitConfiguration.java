package dev.ratelimit.cdi;

import dev.ratelimit.core.config.AdminSettings;
import dev.ratelimit.core.config.LimitsFile;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.config.SettingsSource;
import dev.ratelimit.core.live.LiveValues;
import dev.ratelimit.core.testing.ManualClock;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.file.Path;
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
    private SettingsSource base;
    private Path limitsFile;
    private int refreshSeconds;
    private LiveValues.Startup startup;
    private AdminSettings admin;

    @PostConstruct
    void load() {
        base = source(ConfigProvider.getConfig(RateLimitConfiguration.class.getClassLoader()));
        limitsFile = LimitsFile.path(base);
        refreshSeconds = LimitsFile.refreshSeconds(base, limitsFile);
        admin = AdminSettings.load(base);
        startup = LiveValues.startup(base, limitsFile);
        settings = RateLimitSettings.load(startup.source());
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

    /** The settings the application started with: {@code ratelimit.limits-file}'s values over MicroProfile Config. */
    public RateLimitSettings settings() {
        return settings;
    }

    /** MicroProfile Config, read again by live values. */
    public SettingsSource base() {
        return base;
    }

    /** What {@link #settings()} was read from, for live values. */
    public LiveValues.Startup startup() {
        return startup;
    }

    /** {@code ratelimit.limits-file}, or null. */
    public Path limitsFile() {
        return limitsFile;
    }

    /** {@code ratelimit.refresh-seconds}: 0 (read once), or how often live values are read again. */
    public int refreshSeconds() {
        return refreshSeconds;
    }

    /** {@code ratelimit.admin.*}. */
    public AdminSettings admin() {
        return admin;
    }

    /**
     * The configuration as the OpenAPI filter reads it each time it runs: {@code ratelimit.limits-file}'s values over
     * {@code config}'s.
     */
    public static SettingsSource withLimitsFile(Config config) {
        SettingsSource mp = source(config);
        return LiveValues.startup(mp, LimitsFile.path(mp)).source();
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
