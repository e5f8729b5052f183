package dev.ratelimit.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitScope;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.internal.cdi.RateLimitRuntime;
import dev.ratelimit.redis.testing.RedisServerExtension;
import dev.ratelimit.store.InProcessRateLimitStore;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
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

/**
 * The module on a CDI class path (Weld SE, SmallRye Config): Redis counts when
 * {@code ratelimit.redis.uri} is set, the in-process store otherwise, and the start-up line says which.
 */
class RedisStoreProducerTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final List<String> KEYS = List.of(RedisSettings.URI, RedisSettings.ON_FAILURE,
            RedisSettings.TIMEOUT_MILLIS, RedisSettings.KEY_PREFIX, RedisSettings.CLUSTER);

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
    void withTheUriSetRedisCountsAndTheStartUpLineSaysSo() throws Exception {
        configure(Map.of(RedisSettings.URI, REDIS.uri(), RedisSettings.KEY_PREFIX, "cdi:"));
        try (WeldContainer container = new Weld().initialize()) {
            RateLimitStore store = container.select(RateLimitRuntime.class).get().store();
            assertThat(store.toString()).startsWith("RedisRateLimitStore(uri=" + REDIS.uri());
            assertThat(logged).anySatisfy(line -> assertThat(line).startsWith("ratelimit: store RedisRateLimitStore(uri="));

            RateLimitPolicy limit = new RateLimitPolicy("cdi", 1, 60, RateLimitScope.TRANSPORT);
            RateLimitDecision first = store.acquire("p", List.of(limit)).toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(first.allowed()).isTrue();
            try (var resp = REDIS.client()) {
                assertThat(resp.number("EXISTS", "cdi:{1:p}cdi")).isEqualTo(1);
            }
        }
    }

    @Test
    void withoutTheUriEachInstanceCountsInProcessAndTheStartUpLineSaysSo() {
        try (WeldContainer container = new Weld().initialize()) {
            RateLimitStore store = container.select(RateLimitRuntime.class).get().store();
            assertThat(store.toString()).isEqualTo(new InProcessRateLimitStore().toString());
            assertThat(logged).anySatisfy(line -> assertThat(line).startsWith("ratelimit: store InProcessRateLimitStore("));
            assertThat(logged).anySatisfy(line -> assertThat(line).contains(RedisSettings.URI + " is not set"));
        }
    }

    @Test
    void aMalformedUriFailsStartUpNamingTheKeyAndTheValue() {
        configure(Map.of(RedisSettings.URI, "http://pw@127.0.0.1:6379"));
        assertThatThrownBy(() -> new Weld().initialize().close())
                .hasMessageContaining("ratelimit.redis.uri")
                .hasMessageContaining("\"http://***@127.0.0.1:6379\"")
                .hasMessageNotContaining("pw@");
    }

    private static void configure(Map<String, String> settings) {
        settings.forEach(System::setProperty);
    }
}
