package dev.ratelimit.redis.cdi;

import static dev.ratelimit.core.testing.EngineFixtures.beanMethod;
import static dev.ratelimit.core.testing.EngineFixtures.decideNow;
import static dev.ratelimit.core.testing.EngineFixtures.limit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.cdi.RateLimitRuntime;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.redis.testing.RedisServerExtension;
import dev.ratelimit.redis.testing.Resp;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The module on a CDI class path (Weld SE, SmallRye Config): its producer replaces ratelimit-cdi's default;
 * Redis counts when {@code ratelimit.redis.uri} is set, on the engine's timeout, else the in-process store
 * exactly as without this module; a malformed value fails start-up naming the key and the value.
 */
class RedisStoreProducerTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final List<String> KEYS = List.of(RedisSettings.URI, RedisSettings.KEY_PREFIX, RedisSettings.CLUSTER, RedisSettings.CLIENT,
            RateLimitSettings.STORE_TIMEOUT_MILLIS, RedisSettings.OLDER_TIMEOUT_MILLIS,
            RateLimitSettings.MAX_TRACKED_PARTITIONS, RateLimitSettings.TEST_MANUAL_CLOCK);

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
        Logger.getLogger("dev.ratelimit").addHandler(capture);
    }

    @AfterEach
    void forget() {
        Logger.getLogger("dev.ratelimit").removeHandler(capture);
        KEYS.forEach(System::clearProperty);
        ConfigProviderResolver.instance().releaseConfig(ConfigProvider.getConfig(getClass().getClassLoader()));
    }

    @Test
    void withTheUriSetRedisCountsAndLettuceOutwaitsTheEnginesTimeoutAndTheStartUpLineSaysSo() throws Exception {
        configure(Map.of(RedisSettings.URI, REDIS.uri(), RedisSettings.KEY_PREFIX, "cdi:",
                RateLimitSettings.STORE_TIMEOUT_MILLIS, "2500"));
        RedisRateLimitStore redis;
        try (WeldContainer container = new Weld().initialize()) {
            RateLimitEngine engine = container.select(RateLimitRuntime.class).get().engine();
            RateLimitStore store = container.select(RateLimitStore.class).get();
            assertThat(store).isInstanceOf(RedisRateLimitStore.class); // the store itself: no client proxy
            redis = (RedisRateLimitStore) store;
            // Lettuce waits the engine's 2500 ms and as long again, so a late answer still reaches the engine
            // and a permit it decided by the failure policy is given back
            assertThat(store.toString()).isEqualTo("RedisRateLimitStore(uri=" + REDIS.uri()
                    + ", cluster=false, client=jedis+lettuce, timeout-millis=5000, key-prefix=cdi:)");
            // a request thread that may block (Jersey on Grizzly, Open Liberty, Payara) calls through Jedis
            assertThat(redis.client()).isEqualTo("jedis+lettuce");
            assertThat(logged).anySatisfy(line -> assertThat(line).startsWith("ratelimit: store RedisRateLimitStore(uri="));

            BoundLimits limits = engine.binder().bind(beanMethod("RedisStoreProducerTest", limit(
                    new RateLimitPolicy("cdi", 1, 60), 1)));
            RateLimitDecision first = decideNow(engine, engine.ledger("p"), limits);
            assertThat(first.allowed()).isTrue();
            assertThat(decideNow(engine, engine.ledger("p"), limits).allowed()).isFalse();
            try (Resp resp = REDIS.client()) {
                assertThat(resp.number("EXISTS", "cdi:{1:p}cdi")).isEqualTo(1);
            }
        }
        assertThat(redis.awaitConnection(java.time.Duration.ofMillis(100))).as("closed with the container").isFalse();
    }

    @Test
    void withTheClientSetToLettuceEveryCallGoesThroughLettuce() {
        configure(Map.of(RedisSettings.URI, REDIS.uri(), RedisSettings.CLIENT, "lettuce"));
        try (WeldContainer container = new Weld().initialize()) {
            RateLimitStore store = container.select(RateLimitStore.class).get();
            assertThat(((RedisRateLimitStore) store).client()).isEqualTo("lettuce");
            assertThat(store.toString()).contains(", client=lettuce,");
        }
    }

    @Test
    void withTheManualClockOfTestsRedisCountsOnIt() {
        configure(Map.of(RedisSettings.URI, REDIS.uri(), RateLimitSettings.TEST_MANUAL_CLOCK, "true"));
        try (WeldContainer container = new Weld().initialize()) {
            RateLimitStore store = container.select(RateLimitStore.class).get();
            assertThat(store.toString()).contains(", manual clock)");
        }
    }

    @Test
    void withoutTheUriEachInstanceCountsInProcessAsWithoutThisModule() {
        configure(Map.of(RateLimitSettings.MAX_TRACKED_PARTITIONS, "123"));
        try (WeldContainer container = new Weld().initialize()) {
            assertThat(container.select(RateLimitRuntime.class).get().engine().enabled()).isTrue();
            assertThat(container.select(RateLimitStore.class).get()).isInstanceOfSatisfying(InProcessRateLimitStore.class,
                    store -> assertThat(store.maxTrackedPartitions()).isEqualTo(123));
            assertThat(logged).anySatisfy(line -> assertThat(line).startsWith("ratelimit: store InProcessRateLimitStore("));
            assertThat(logged).anySatisfy(line -> assertThat(line).contains(RedisSettings.URI + " is not set"));
        }
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "ratelimit.redis.uri|http://127.0.0.1:6379",
            "ratelimit.redis.cluster|yes",
            "ratelimit.redis.key-prefix|a{b}",
            "ratelimit.redis.client|vertx",
            "ratelimit.redis.timeout-millis|abc"})
    void aMalformedValueFailsStartUpNamingTheKeyAndTheValue(String key, String value) {
        System.setProperty(RedisSettings.URI, REDIS.uri());
        System.setProperty(key, value);
        assertThatThrownBy(() -> new Weld().initialize().close())
                .hasStackTraceContaining(key)
                .hasStackTraceContaining("\"" + value + "\"");
    }

    @Test
    void aMalformedUriFailsStartUpWithoutItsPassword() {
        configure(Map.of(RedisSettings.URI, "http://pw@127.0.0.1:6379"));
        assertThatThrownBy(() -> new Weld().initialize().close())
                .hasStackTraceContaining("ratelimit.redis.uri")
                .hasStackTraceContaining("\"http://***@127.0.0.1:6379\"")
                .satisfies(e -> assertThat(stackTrace(e)).doesNotContain("pw@"));
    }

    private static String stackTrace(Throwable e) {
        java.io.StringWriter out = new java.io.StringWriter();
        e.printStackTrace(new java.io.PrintWriter(out));
        return out.toString();
    }

    private static void configure(Map<String, String> settings) {
        settings.forEach(System::setProperty);
    }
}
