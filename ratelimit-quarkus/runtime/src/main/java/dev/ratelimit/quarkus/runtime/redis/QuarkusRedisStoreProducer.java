package dev.ratelimit.quarkus.runtime.redis;

import dev.ratelimit.cdi.RateLimitConfiguration;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.guard.KeySecretFingerprint;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.redis.RedisStoreBuilder;
import dev.ratelimit.redis.cdi.RedisSettings;
import dev.ratelimit.redis.transport.RedisTransport;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisClientType;
import io.vertx.redis.client.RedisOptions;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.interceptor.Interceptor;
import java.time.Duration;
import java.util.function.Supplier;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

/**
 * The store of a Quarkus application that has both {@code ratelimit-redis} and {@code quarkus-redis-client} (the
 * extension registers it only then): the Redis store on the Vert.x Redis client, so on Quarkus' event loops, with no
 * I/O threads of its own beside them (Lettuce, which {@code ratelimit-redis} uses elsewhere, is not loaded).
 * <ul>
 *   <li>{@code ratelimit.redis.uri} set: a Vert.x Redis client of its own for that URI, on Quarkus' Vert.x;</li>
 *   <li>else, {@code quarkus.redis.hosts} set: the application's default Quarkus Redis client;</li>
 *   <li>else the in-process store, as without {@code ratelimit-redis}.</li>
 * </ul>
 * An enabled alternative of a priority above {@code ratelimit-redis}' own producer, which it replaces; an application's
 * own {@code @Alternative} store, of an application priority, still replaces it. {@code @Singleton}: the engine holds
 * the store itself. The store is made when the engine binds the limits, before Quarkus' Vert.x exists: its transport
 * is handed the Vert.x client at start-up ({@link DeferredTransport}), which then waits a few seconds for Redis, so
 * that the first requests do not pay for connecting.
 */
@Alternative
@Priority(Interceptor.Priority.LIBRARY_BEFORE + 10)
@ApplicationScoped
public class QuarkusRedisStoreProducer {

    private static final Logger LOG = Logger.getLogger("dev.ratelimit.redis");
    private static final Duration START_UP_WAIT = Duration.ofSeconds(5);

    @Inject
    Instance<Vertx> vertx;

    /** The application's default Quarkus Redis client, looked up only when {@code quarkus.redis.hosts} is set. */
    @Inject
    Instance<Redis> applicationClient;

    /** Set by {@link #store}: what {@link #start} hands over. */
    private DeferredTransport deferred;
    private Supplier<RedisTransport> transport;
    private RedisRateLimitStore made;
    /** The secret whose fingerprint {@link #start} compares; null when none is set or the library is off. */
    private String keySecret;

    @Produces
    @Singleton
    RateLimitStore store(RateLimitConfiguration configuration) {
        Config config = ConfigProvider.getConfig(QuarkusRedisStoreProducer.class.getClassLoader());
        RedisSettings redis = RedisSettings.load(config);
        String where;
        if (redis.uri() != null) {
            RedisOptions options = new RedisOptions().setConnectionString(redis.uri())
                    .setType(redis.cluster() ? RedisClientType.CLUSTER : RedisClientType.STANDALONE);
            transport = () -> new VertxRedisTransport(vertx.get(), Redis.createClient(vertx.get(), options), true);
            where = "uri=" + redis.redactedUri() + ", Vert.x client";
        } else if (config.getOptionalValue("quarkus.redis.hosts", String.class).isPresent()) {
            transport = () -> new VertxRedisTransport(vertx.get(), applicationClient.get(), false);
            where = "the Quarkus Redis client (quarkus.redis.hosts)";
        } else {
            LOG.infof("ratelimit: ratelimit-redis is present but neither %s nor quarkus.redis.hosts is set: each instance "
                    + "counts alone, in process", RedisSettings.URI);
            return new InProcessRateLimitStore(configuration.settings().maxTrackedPartitions(), configuration.clock());
        }
        // longer than the engine's timeout, as RedisStoreProducer's: a late answer still reaches the engine
        long timeout = configuration.settings().timeoutMillis();
        deferred = new DeferredTransport();
        RedisStoreBuilder builder = RedisRateLimitStore.builder(deferred, where).cluster(redis.cluster())
                .keyPrefix(redis.keyPrefix()).timeout(Duration.ofMillis(timeout + Math.max(timeout, 1_000L)));
        if (configuration.manualClock() != null) {
            builder.nanoClock(configuration.manualClock());
        }
        made = builder.build();
        RateLimitSettings settings = configuration.settings();
        keySecret = settings.enabled() ? settings.keySecret() : null;
        return made;
    }

    /**
     * Vert.x is there: the store's transport starts, start-up waits a few seconds for Redis, and the fingerprint of
     * {@code ratelimit.key-secret} that the engine could not leave before is compared now: another instance's secret
     * fails start-up naming the key (docs/login-protection.md, "One secret for every instance").
     */
    void start(@Observes StartupEvent event) {
        if (deferred == null) {
            return;
        }
        deferred.start(transport.get());
        if (!made.awaitConnection(START_UP_WAIT)) {
            LOG.infof("ratelimit: %s is not connected after %d s; it keeps connecting in the background", made,
                    START_UP_WAIT.toSeconds());
        }
        if (keySecret != null) {
            KeySecretFingerprint.check(made, keySecret);
        }
    }

    void close(@Disposes RateLimitStore store) {
        if (store instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                LOG.warnf(e, "ratelimit: closing %s failed", store);
            }
        }
    }
}
