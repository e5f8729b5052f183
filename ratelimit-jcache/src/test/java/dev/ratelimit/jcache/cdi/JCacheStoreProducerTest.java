package dev.ratelimit.jcache.cdi;

import static dev.ratelimit.core.testing.EngineFixtures.beanMethod;
import static dev.ratelimit.core.testing.EngineFixtures.decideNow;
import static dev.ratelimit.core.testing.EngineFixtures.limit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.cache.HazelcastCachingProvider;
import com.hazelcast.core.Hazelcast;
import dev.ratelimit.cdi.RateLimitRuntime;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.jcache.JCacheRateLimitStore;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import javax.cache.Caching;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The module on a CDI class path (Weld SE, SmallRye Config): its producer replaces ratelimit-cdi's default; the cache
 * counts when {@code ratelimit.jcache.cache} is set (here on a Hazelcast member the provider starts from its
 * configuration URI), else the in-process store exactly as without this module; a malformed value fails start-up
 * naming the key and the value.
 */
class JCacheStoreProducerTest {

    private static final String CONFIG = "classpath:hazelcast-cdi.xml";
    private static final List<String> KEYS = List.of(JCacheSettings.CACHE, JCacheSettings.PROVIDER, JCacheSettings.URI,
            JCacheSettings.MODE, JCacheSettings.EXPIRY_SECONDS, JCacheSettings.THREADS,
            RateLimitSettings.MAX_TRACKED_PARTITIONS, RateLimitSettings.TEST_MANUAL_CLOCK);

    /** Held, so that the logger (which JUL keeps weakly) keeps its handler while a member starts. */
    private static final Logger LIBRARY = Logger.getLogger("dev.ratelimit");

    private final ConcurrentLinkedQueue<String> logged = new ConcurrentLinkedQueue<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(record.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void listen() {
        LIBRARY.addHandler(capture);
    }

    @AfterEach
    void forget() {
        LIBRARY.removeHandler(capture);
        KEYS.forEach(System::clearProperty);
        ConfigProviderResolver.instance().releaseConfig(ConfigProvider.getConfig(getClass().getClassLoader()));
    }

    @AfterAll
    static void stopMembers() {
        Caching.getCachingProvider(HazelcastCachingProvider.MEMBER_CACHING_PROVIDER).close();
        Hazelcast.shutdownAll();
    }

    @Test
    void withTheCacheSetItCountsThereAndTheStartUpLineSaysWhereAndHow() {
        configure(Map.of(JCacheSettings.CACHE, "cdi-counts", JCacheSettings.PROVIDER,
                HazelcastCachingProvider.MEMBER_CACHING_PROVIDER, JCacheSettings.URI, CONFIG,
                JCacheSettings.EXPIRY_SECONDS, "600"));
        try (WeldContainer container = new Weld().initialize()) {
            RateLimitEngine engine = container.select(RateLimitRuntime.class).get().engine();
            RateLimitStore store = container.select(RateLimitStore.class).get();
            assertThat(store).isInstanceOf(JCacheRateLimitStore.class); // the store itself: no client proxy
            assertThat(store.toString()).isEqualTo("JCacheRateLimitStore(cache=cdi-counts, provider="
                    + "com.hazelcast.cache.impl.HazelcastServerCachingProvider, mode=entry processor (auto), "
                    + "expiry=600 s after the last write, announcements=cdi-counts.announcements)");
            assertThat(logged).anySatisfy(line -> assertThat(line).startsWith("ratelimit: store JCacheRateLimitStore("));

            BoundLimits limits = engine.binder().bind(beanMethod("JCacheStoreProducerTest",
                    limit(new RateLimitPolicy("cdi", 1, 60), 1)));
            RateLimitDecision first = decideNow(engine, engine.ledger("p"), limits);
            assertThat(first.allowed()).isTrue();
            assertThat(decideNow(engine, engine.ledger("p"), limits).allowed()).isFalse();
            assertThat(Caching.getCachingProvider(HazelcastCachingProvider.MEMBER_CACHING_PROVIDER)
                    .getCacheManager(URI.create(CONFIG), null)
                    .getCache("cdi-counts").containsKey("cdi|p")).isTrue();
        }
    }

    @Test
    void withTheManualClockOfTestsItCountsOnIt() {
        configure(Map.of(JCacheSettings.CACHE, "cdi-manual", JCacheSettings.PROVIDER,
                HazelcastCachingProvider.MEMBER_CACHING_PROVIDER, JCacheSettings.URI, CONFIG,
                JCacheSettings.MODE, "cas", RateLimitSettings.TEST_MANUAL_CLOCK, "true"));
        try (WeldContainer container = new Weld().initialize()) {
            assertThat(container.select(RateLimitStore.class).get().toString())
                    .contains("mode=compare-and-set, ").endsWith(", manual clock)");
        }
    }

    @Test
    void withoutTheCacheEachInstanceCountsInProcessAsWithoutThisModule() {
        configure(Map.of(RateLimitSettings.MAX_TRACKED_PARTITIONS, "123"));
        try (WeldContainer container = new Weld().initialize()) {
            assertThat(container.select(RateLimitStore.class).get()).isInstanceOfSatisfying(InProcessRateLimitStore.class,
                    store -> assertThat(store.maxTrackedPartitions()).isEqualTo(123));
            assertThat(logged).anySatisfy(line -> assertThat(line).contains(JCacheSettings.CACHE + " is not set"));
        }
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "ratelimit.jcache.mode|fast",
            "ratelimit.jcache.expiry-seconds|0",
            "ratelimit.jcache.expiry-seconds|1h",
            "ratelimit.jcache.threads|abc",
            "ratelimit.jcache.uri|file:///a b.xml",
            "ratelimit.jcache.provider|com.example.Not A Class"})
    void aMalformedValueFailsStartUpNamingTheKeyAndTheValue(String key, String value) {
        System.setProperty(JCacheSettings.CACHE, "cdi-malformed");
        System.setProperty(key, value);
        assertThatThrownBy(() -> new Weld().initialize().close())
                .hasStackTraceContaining(key)
                .hasStackTraceContaining("\"" + value + "\"");
    }

    private static void configure(Map<String, String> settings) {
        settings.forEach(System::setProperty);
    }
}
