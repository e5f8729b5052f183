package dev.ratelimit.redis;

import dev.ratelimit.redis.internal.RedisKeys;
import dev.ratelimit.redis.internal.RedisUris;
import dev.ratelimit.redis.transport.RedisTransport;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Options of a {@link RedisRateLimitStore}, from {@link RedisRateLimitStore#builder(String)} or
 * {@link RedisRateLimitStore#builder(RedisTransport, String)}; not thread-safe.
 */
public final class RedisStoreBuilder {

    final io.lettuce.core.RedisURI uri;
    final RedisTransport transport;
    final String where;
    boolean cluster;
    Duration timeout = RedisRateLimitStore.DEFAULT_TIMEOUT;
    String keyPrefix = RedisKeys.DEFAULT_PREFIX;
    LongSupplier nanoClock;
    long expiryPaddingMillis = RedisRateLimitStore.TEST_EXPIRY_PADDING_MILLIS;
    int mostMoves = SlotSplit.MOST_MOVES;
    RedisRateLimitStore.Client client = RedisRateLimitStore.Client.AUTO;
    Duration blockingTimeout;

    RedisStoreBuilder(String uri, RedisTransport transport, String where) {
        this.transport = transport;
        if (transport == null) {
            this.uri = RedisUris.parse(uri);
            this.where = "uri=" + RedisUris.redact(uri);
        } else {
            this.uri = null;
            this.where = where;
        }
    }

    /** Talk the Redis Cluster protocol, the URI naming a seed node. Default false. */
    public RedisStoreBuilder cluster(boolean cluster) {
        this.cluster = cluster;
        return this;
    }

    /**
     * The longest Redis may take to answer a command, positive: commands never pile up behind a Redis that
     * hangs. Under the engine, longer than its {@code ratelimit.store.timeout-millis} (see the class
     * comment). Default 250 ms. (A transport given to {@link RedisRateLimitStore#builder(RedisTransport, String)} has its own.)
     */
    public RedisStoreBuilder timeout(Duration timeout) {
        this.timeout = positive("timeout", timeout);
        return this;
    }

    /**
     * Which client carries the store's calls ({@link RedisRateLimitStore.Client}); default {@link RedisRateLimitStore.Client#AUTO}. A Sentinel URI always
     * takes Lettuce. Ignored with a transport given to {@link RedisRateLimitStore#builder(RedisTransport, String)}.
     */
    public RedisStoreBuilder client(RedisRateLimitStore.Client client) {
        this.client = java.util.Objects.requireNonNull(client, "client");
        return this;
    }

    /**
     * With Jedis: how long a call may block its thread to connect, and then again to be answered, positive; the
     * engine cannot answer a blocked thread before the call returns, so under the engine this is its
     * {@code ratelimit.store.timeout-millis}. Default: {@link #timeout}.
     */
    public RedisStoreBuilder blockingTimeout(Duration timeout) {
        this.blockingTimeout = positive("blocking timeout", timeout);
        return this;
    }

    /** Text in front of every key (and of the channel of announcements); without braces. Default {@value RedisKeys#DEFAULT_PREFIX}. */
    public RedisStoreBuilder keyPrefix(String keyPrefix) {
        new RedisKeys(keyPrefix);
        this.keyPrefix = keyPrefix;
        return this;
    }

    /**
     * For tests only: take time from this monotonic nanosecond clock (a manual clock, read at the store's
     * resolution of a microsecond) instead of the Redis server's clock, and keep counts an hour longer than
     * they need, since real time passes while manual time stands still.
     */
    public RedisStoreBuilder nanoClock(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
        return this;
    }

    /** With a {@link #nanoClock}: how much longer than they need counts are kept (the expiry tests take 0). */
    RedisStoreBuilder expiryPaddingMillis(long millis) {
        this.expiryPaddingMillis = millis;
        return this;
    }

    /** On a cluster: how often a split request's parts may move before it gives up (tests take 0). */
    RedisStoreBuilder mostMoves(int moves) {
        this.mostMoves = moves;
        return this;
    }

    /** Starts connecting in the background; never fails because Redis is unreachable. */
    public RedisRateLimitStore build() {
        return new RedisRateLimitStore(this);
    }

    private static Duration positive(String what, Duration duration) {
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, was " + duration);
        }
        return duration;
    }
}
