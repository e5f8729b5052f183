package dev.ratelimit.jcache.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.cache.HazelcastCachingProvider;
import com.hazelcast.core.Hazelcast;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitKey;
import dev.ratelimit.cdi.RateLimitRuntime;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.jcache.JCacheRateLimitStore;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.cache.Caching;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code ratelimit.key-secret} at start-up of an application on the JCache store that its producer makes (Weld SE,
 * SmallRye Config, a Hazelcast member the provider starts), with a {@code per = ARGUMENT} limit on a bean: without the
 * secret the deployment fails naming the key; two instances one after the other with the same secret start; one with
 * another secret fails naming the key, and neither value is in the failure.
 */
class KeySecretOnStartUpTest {

    private static final String CONFIG = "classpath:hazelcast-cdi.xml";
    private static final List<String> KEYS = List.of(JCacheSettings.CACHE, JCacheSettings.PROVIDER, JCacheSettings.URI,
            RateLimitSettings.KEY_SECRET);

    /** A log-in as the docs show it: failures per account. */
    @ApplicationScoped
    public static class Accounts {

        @RateLimit(name = "login-account", permitLimit = 10, windowSeconds = 3600, per = RateLimitPer.ARGUMENT,
                failuresOnly = true)
        public String login(@RateLimitKey String username) {
            return username;
        }
    }

    @AfterEach
    void forget() {
        KEYS.forEach(System::clearProperty);
        ConfigProviderResolver.instance().releaseConfig(ConfigProvider.getConfig(getClass().getClassLoader()));
    }

    @AfterAll
    static void stopMembers() {
        Caching.getCachingProvider(HazelcastCachingProvider.MEMBER_CACHING_PROVIDER).close();
        Hazelcast.shutdownAll();
    }

    @Test
    void withoutTheSecretAPerArgumentLimitOnTheJCacheStoreFailsStartUpNamingTheKey() {
        configure(cache(), null);

        assertThatThrownBy(() -> new Weld().addBeanClass(Accounts.class).initialize().close())
                .hasStackTraceContaining("ratelimit.key-secret is required")
                .hasStackTraceContaining("\"login-account\"");
    }

    @Test
    void aSecondInstanceWithAnotherSecretFailsStartUpNamingTheKeyAndNeitherValue() {
        String cache = cache();
        configure(cache, "the-fleet-secret-0123456789");
        try (WeldContainer first = new Weld().addBeanClass(Accounts.class).initialize()) {
            assertThat(first.select(RateLimitStore.class).get()).as("the producer's store")
                    .isInstanceOf(JCacheRateLimitStore.class);
            assertThat(first.select(RateLimitRuntime.class).get().engine().enabled()).isTrue();
        }
        forget();
        configure(cache, "the-fleet-secret-0123456789");
        try (WeldContainer second = new Weld().addBeanClass(Accounts.class).initialize()) {
            assertThat(second.select(RateLimitRuntime.class).get().engine().enabled()).as("the same secret").isTrue();
        }
        forget();
        configure(cache, "a-mistyped-secret-0123456789");

        assertThatThrownBy(() -> new Weld().addBeanClass(Accounts.class).initialize().close())
                .hasStackTraceContaining("ratelimit.key-secret differs")
                .satisfies(e -> assertThat(stackTrace(e)).doesNotContain("the-fleet-secret-0123456789")
                        .doesNotContain("a-mistyped-secret-0123456789"));
    }

    private static String cache() {
        return "startup-" + UUID.randomUUID();
    }

    private static void configure(String cache, String secret) {
        Map<String, String> settings = new HashMap<>(Map.of(JCacheSettings.CACHE, cache, JCacheSettings.PROVIDER,
                HazelcastCachingProvider.MEMBER_CACHING_PROVIDER, JCacheSettings.URI, CONFIG));
        if (secret != null) {
            settings.put(RateLimitSettings.KEY_SECRET, secret);
        }
        settings.forEach(System::setProperty);
    }

    private static String stackTrace(Throwable e) {
        java.io.StringWriter out = new java.io.StringWriter();
        e.printStackTrace(new java.io.PrintWriter(out));
        return out.toString();
    }
}
