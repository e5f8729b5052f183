package dev.ratelimit.redis;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitDecision.Outcome;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.redis.internal.OutageLog;
import dev.ratelimit.redis.internal.RedisConnector;
import dev.ratelimit.redis.internal.RedisKeys;
import dev.ratelimit.redis.internal.RedisSettings;
import dev.ratelimit.redis.internal.RedisStoreException;
import dev.ratelimit.redis.internal.Script;
import dev.ratelimit.store.InProcessRateLimitStore;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * Counts in Redis, so that every instance of an application spends from one shared count (SPEC 7),
 * with exactly the semantics of {@link InProcessRateLimitStore}: 8-step sliding window anchored at
 * the count's creation, a count sized by the request that creates it, all or nothing, give-back to
 * the step a permit was spent in.
 *
 * <p>One request is one round trip: one Lua script ({@code EVALSHA}, {@code EVAL} only when Redis
 * does not know it yet) reads the server's clock, rolls each count of the request, decides all of
 * them together, spends, and sets each count to expire when its last permit returns (an empty count
 * is as good as a missing one, so nothing is lost). Keys: see {@link RedisKeys}; all counts of a
 * request share one Redis Cluster slot.
 *
 * <p>Whatever Redis does, a request is decided within the timeout: when Redis fails or does not
 * answer in time, {@link OnFailure} decides. One warning is logged per outage. Lettuce reconnects by
 * itself; an application never needs a restart.
 *
 * <p>Thread-safe and non-blocking: every field is final (Lettuce's connection and the in-process
 * fallback are thread-safe themselves) but {@code closed}, a volatile flag that silences the outage log
 * once closing fails the calls in flight. Stages complete on Lettuce's I/O threads (or the JDK's
 * timeout thread), and nothing done there blocks. Close it to release the connection and the client's
 * threads.
 */
public final class RedisRateLimitStore implements RateLimitStore, AutoCloseable {

    /** Default of {@code ratelimit.redis.timeout-millis}. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(250);

    /** Microseconds in one step of a one-second window: times are kept in microseconds, the server's clock's unit. */
    private static final long MICROS_PER_STEP_SECOND = 125_000L;
    private static final long NANOS_PER_MICRO = 1_000L;
    /** Local counts live far below zero, Redis receipts at or above it: a receipt says which store spent it. */
    private static final long LOCAL_ORIGIN = Long.MIN_VALUE / 2;
    /** With a test clock, real time must not expire counts that fake time still needs. */
    private static final long TEST_EXTRA_EXPIRY_MS = 3_600_000L;

    private final String description;
    private final String server;
    private final RedisKeys keys;
    private final RedisConnector connector;
    private final long timeoutNanos;
    private final OnFailure onFailure;
    private final InProcessRateLimitStore local;
    private final OutageLog outage;
    private final LongSupplier testClock;
    private final long origin;
    private final String extraExpiryMs;
    private volatile boolean closed;

    private RedisRateLimitStore(Builder b) {
        this.server = "Redis at " + RedisSettings.redact(b.uriText);
        this.keys = new RedisKeys(b.keyPrefix);
        this.timeoutNanos = b.timeout.toNanos();
        this.onFailure = b.onFailure;
        this.testClock = b.nanoClock;
        LongSupplier nanoTime = testClock == null ? System::nanoTime : testClock;
        this.origin = testClock == null ? 0 : testClock.getAsLong();
        this.extraExpiryMs = testClock == null ? "0" : Long.toString(TEST_EXTRA_EXPIRY_MS);
        if (onFailure == OnFailure.LOCAL) {
            long localBase = nanoTime.getAsLong();
            local = new InProcessRateLimitStore(b.maxTrackedPartitions, () -> nanoTime.getAsLong() - localBase + LOCAL_ORIGIN);
        } else {
            local = null;
        }
        this.outage = new OutageLog(server, switch (onFailure) {
            case FAIL -> "requests fail with 500 (ratelimit.redis.on-failure=fail)";
            case ALLOW -> "requests are let through uncounted (ratelimit.redis.on-failure=allow)";
            case LOCAL -> "each instance counts alone, in process (ratelimit.redis.on-failure=local)";
        });
        this.description = "RedisRateLimitStore(uri=" + RedisSettings.redact(b.uriText) + ", cluster=" + b.cluster
                + ", timeout-millis=" + b.timeout.toMillis() + ", key-prefix=" + b.keyPrefix
                + ", on-failure=" + onFailure.name().toLowerCase(Locale.ROOT)
                + (testClock == null ? "" : ", test clock") + ")";
        this.connector = new RedisConnector(b.uri, b.cluster, b.timeout);
    }

    /**
     * A builder for a store on the Redis at {@code uri} ({@code redis://[password@]host[:port][/database]},
     * {@code rediss://...} for TLS, {@code redis-sentinel://host:port[,host:port]#master}).
     *
     * @throws IllegalArgumentException when {@code uri} is not a Redis URI
     */
    public static Builder builder(String uri) {
        return new Builder(uri);
    }

    @Override
    public CompletionStage<RateLimitDecision> acquire(String partition, List<RateLimitPolicy> policies) {
        int n = policies.size();
        String tag = RedisKeys.tag(partition);
        String[] keyArray = new String[n];
        String[] args = new String[2 + 2 * n];
        args[0] = now();
        args[1] = extraExpiryMs;
        for (int i = 0; i < n; i++) {
            RateLimitPolicy policy = policies.get(i);
            keyArray[i] = keys.key(tag, policy.name());
            args[2 + 2 * i] = Integer.toString(policy.permitLimit());
            args[3 + 2 * i] = Long.toString(policy.windowSeconds() * MICROS_PER_STEP_SECOND);
        }
        CompletableFuture<RateLimitDecision> result = new CompletableFuture<>();
        this.<List<Object>>run(Script.ACQUIRE, ScriptOutputType.MULTI, keyArray, args).whenComplete((reply, failure) -> {
            if (failure == null) {
                outage.answered();
                try {
                    result.complete(decision(partition, policies, reply));
                    return;
                } catch (RuntimeException malformed) {
                    failure = malformed;
                }
            }
            failed(partition, policies, RedisConnector.unwrap(failure), result);
        });
        return result;
    }

    @Override
    public void release(RateLimitDecision decision) {
        releaseAsync(decision);
    }

    /**
     * {@link #release}, with a stage that completes once the permits are back, with how many were
     * given back (a permit whose step has left the window has returned already and is not counted).
     * It fails when Redis did not answer; that failure is logged (once per outage) either way.
     */
    public CompletionStage<Long> releaseAsync(RateLimitDecision decision) {
        int spent = 0;
        long firstReceipt = 0;
        for (Outcome outcome : decision.outcomes()) {
            if (outcome.spent() && spent++ == 0) {
                firstReceipt = outcome.receipt();
            }
        }
        if (spent == 0) {
            return CompletableFuture.completedFuture(0L);
        }
        if (firstReceipt < 0) {
            if (local != null) {
                local.release(decision);
            }
            return CompletableFuture.completedFuture((long) spent);
        }
        String tag = RedisKeys.tag(decision.partition());
        String[] keyArray = new String[spent];
        String[] args = new String[1 + spent];
        args[0] = now();
        int i = 0;
        for (Outcome outcome : decision.outcomes()) {
            if (outcome.spent()) {
                keyArray[i] = keys.key(tag, outcome.policy().name());
                args[++i] = Long.toString(outcome.receipt());
            }
        }
        return this.<Long>run(Script.RELEASE, ScriptOutputType.INTEGER, keyArray, args).whenComplete((given, failure) -> {
            if (failure == null) {
                outage.answered();
            } else if (!closed) {
                outage.failed(RedisConnector.unwrap(failure));
            }
        });
    }

    /**
     * Waits until the connection is up and the scripts are loaded, at most {@code wait}: for start-up,
     * so that the first requests do not pay for connecting. An unreachable Redis is logged as an
     * outage (once), and the store still works: it keeps trying to connect.
     *
     * @return whether Redis is connected
     */
    public boolean awaitConnection(Duration wait) {
        try {
            connector.connected().get(wait.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (java.util.concurrent.ExecutionException | TimeoutException e) {
            outage.failed(e instanceof TimeoutException ? e : RedisConnector.unwrap(e.getCause()));
            return false;
        }
    }

    /** Releases the connection and Lettuce's threads. */
    @Override
    public void close() {
        closed = true;
        connector.close();
    }

    @Override
    public String toString() {
        return description;
    }

    private <T> CompletableFuture<T> run(Script script, ScriptOutputType type, String[] keyArray, String[] args) {
        CompletableFuture<T> reply;
        try {
            reply = connector.eval(script, type, keyArray, args);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return reply.orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    private String now() {
        return testClock == null ? "" : Long.toString(Math.floorDiv(testClock.getAsLong() - origin, NANOS_PER_MICRO));
    }

    private RateLimitDecision decision(String partition, List<RateLimitPolicy> policies, List<Object> reply) {
        int n = policies.size();
        if (reply == null || reply.size() != 4 * n) {
            throw new IllegalStateException("unexpected reply from " + Script.ACQUIRE.name() + ": " + reply);
        }
        Outcome[] outcomes = new Outcome[n];
        for (int i = 0; i < n; i++) {
            boolean permit = number(reply.get(4 * i)) == 1;
            int remaining = (int) number(reply.get(4 * i + 1));
            long reset = number(reply.get(4 * i + 2));
            long receipt = number(reply.get(4 * i + 3));
            outcomes[i] = new Outcome(policies.get(i), permit, remaining, reset < 0 ? -1 : reset * NANOS_PER_MICRO,
                    receipt < 0 ? RateLimitDecision.NO_RECEIPT : receipt);
        }
        return n == 1 ? RateLimitDecision.of(partition, outcomes[0]) : new RateLimitDecision(partition, List.of(outcomes));
    }

    private static long number(Object value) {
        return ((Number) value).longValue();
    }

    private void failed(String partition, List<RateLimitPolicy> policies, Throwable cause,
                        CompletableFuture<RateLimitDecision> result) {
        if (!closed) {
            outage.failed(cause);
        }
        switch (onFailure) {
            case ALLOW -> {
                Outcome[] outcomes = new Outcome[policies.size()];
                for (int i = 0; i < outcomes.length; i++) {
                    RateLimitPolicy policy = policies.get(i);
                    outcomes[i] = new Outcome(policy, true, policy.permitLimit(), -1, RateLimitDecision.NO_RECEIPT);
                }
                result.complete(new RateLimitDecision(partition, List.of(outcomes)));
            }
            case LOCAL -> result.complete(local.decide(partition, policies));
            default -> result.completeExceptionally(new RedisStoreException(cause instanceof TimeoutException
                    ? server + " did not answer within " + timeoutNanos / 1_000_000 + " ms"
                    : server + " failed: " + cause, cause));
        }
    }

    /** Options of a {@link RedisRateLimitStore}; not thread-safe. */
    public static final class Builder {

        private final String uriText;
        private final RedisURI uri;
        private boolean cluster;
        private Duration timeout = DEFAULT_TIMEOUT;
        private String keyPrefix = RedisKeys.DEFAULT_PREFIX;
        private OnFailure onFailure = OnFailure.FAIL;
        private int maxTrackedPartitions = InProcessRateLimitStore.DEFAULT_MAX_TRACKED_PARTITIONS;
        private LongSupplier nanoClock;

        private Builder(String uri) {
            this.uriText = uri;
            this.uri = RedisURI.create(uri);
            String scheme = uri.substring(0, uri.indexOf(':')).toLowerCase(Locale.ROOT);
            if (scheme.equals("redis") || scheme.equals("rediss") || scheme.startsWith("redis+")) {
                // Lettuce takes "host:port" with a malformed port for a host name; java.net.URI does not
                try {
                    if (new java.net.URI(uri).getHost() == null) {
                        throw new IllegalArgumentException("no host[:port] in " + RedisSettings.redact(uri));
                    }
                } catch (java.net.URISyntaxException e) {
                    throw new IllegalArgumentException("not a URI: " + RedisSettings.redact(uri));
                }
            }
        }

        /** Talk the Redis Cluster protocol, the URI naming a seed node. Default false. */
        public Builder cluster(boolean cluster) {
            this.cluster = cluster;
            return this;
        }

        /** The longest a request waits for Redis (connect and command alike), positive. Default 250 ms. */
        public Builder timeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive, was " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        /** Text in front of every key; without braces. Default {@value RedisKeys#DEFAULT_PREFIX}. */
        public Builder keyPrefix(String keyPrefix) {
            new RedisKeys(keyPrefix);
            this.keyPrefix = keyPrefix;
            return this;
        }

        /** What a request gets while Redis cannot decide it. Default {@link OnFailure#FAIL}. */
        public Builder onFailure(OnFailure onFailure) {
            this.onFailure = onFailure;
            return this;
        }

        /** Most counts kept in process during an outage with {@link OnFailure#LOCAL}. Default 10000. */
        public Builder maxTrackedPartitions(int maxTrackedPartitions) {
            if (maxTrackedPartitions < 1) {
                throw new IllegalArgumentException("maxTrackedPartitions must be >= 1, was " + maxTrackedPartitions);
            }
            this.maxTrackedPartitions = maxTrackedPartitions;
            return this;
        }

        /**
         * For tests only: take time from this monotonic nanosecond clock (a fake clock) instead of the
         * Redis server's clock, and keep counts at least an hour longer than they need, since real time
         * passes while fake time stands still.
         */
        public Builder nanoClock(LongSupplier nanoClock) {
            this.nanoClock = nanoClock;
            return this;
        }

        /** Starts connecting in the background; never fails because Redis is unreachable. */
        public RedisRateLimitStore build() {
            return new RedisRateLimitStore(this);
        }
    }
}
