package dev.ratelimit.redis.internal;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One Lettuce connection to Redis (standalone, Sentinel or Cluster), shared by every request, and the
 * scripts run on it.
 *
 * <p>Connecting never blocks a caller and never fails the application: the first attempt starts on
 * construction; while it has failed, callers get its failure at once, and the first caller after
 * {@link #RETRY_INTERVAL_NANOS} starts the next one. Once connected, Lettuce reconnects by itself
 * (jittered back-off, at most a second apart) and rejects commands while disconnected instead of
 * queueing them, so an outage answers at once rather than at the timeout.
 *
 * <p>Concurrency: {@code attempt} holds the current connection attempt and is replaced by CAS only
 * when it has failed and {@code nextAttempt} (a {@code System.nanoTime} reading, written by the CAS
 * winner before it publishes) has come. Lettuce's commands are thread-safe.
 */
public final class RedisConnector implements AutoCloseable {

    static final long RETRY_INTERVAL_NANOS = 1_000_000_000L;
    private static final Duration MIN_CONNECT_TIMEOUT = Duration.ofSeconds(2);

    private final RedisURI uri;
    private final boolean cluster;
    private final ClientResources resources;
    private final RedisClient client;
    private final RedisClusterClient clusterClient;
    private final AtomicReference<CompletableFuture<Commands>> attempt = new AtomicReference<>();
    private volatile long nextAttempt;
    private volatile boolean closed;

    /**
     * @param uri     where Redis is (a seed node when {@code cluster})
     * @param cluster whether to talk the Redis Cluster protocol
     * @param timeout the command timeout, and the connect timeout if longer than 2 s
     */
    public RedisConnector(RedisURI uri, boolean cluster, Duration timeout) {
        this.uri = uri;
        this.cluster = cluster;
        if (uri.getClientName() == null) {
            uri.setClientName("ratelimit");
        }
        this.resources = ClientResources.builder()
                .ioThreadPoolSize(2)
                .computationThreadPoolSize(2)
                .reconnectDelay(Delay.fullJitter(Duration.ofMillis(10), Duration.ofSeconds(1), 20, TimeUnit.MILLISECONDS))
                .build();
        // connecting (and TLS) may take longer than a request may wait; requests are bounded by their own timeout
        Duration connectTimeout = timeout.compareTo(MIN_CONNECT_TIMEOUT) < 0 ? MIN_CONNECT_TIMEOUT : timeout;
        SocketOptions socket = SocketOptions.builder().connectTimeout(connectTimeout).keepAlive(true).tcpNoDelay(true).build();
        TimeoutOptions timeouts = TimeoutOptions.enabled(timeout);
        if (cluster) {
            this.client = null;
            this.clusterClient = RedisClusterClient.create(resources, uri);
            clusterClient.setOptions(ClusterClientOptions.builder()
                    .autoReconnect(true)
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .socketOptions(socket)
                    .timeoutOptions(timeouts)
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder().enableAllAdaptiveRefreshTriggers().build())
                    .build());
        } else {
            this.clusterClient = null;
            this.client = RedisClient.create(resources, uri);
            client.setOptions(ClientOptions.builder()
                    .autoReconnect(true)
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .socketOptions(socket)
                    .timeoutOptions(timeouts)
                    .build());
        }
        connect();
    }

    /**
     * Runs a script: {@code EVALSHA}, and only if Redis does not know the script yet (first use, or
     * after a restart or {@code SCRIPT FLUSH}), {@code EVAL}, which also caches it.
     */
    public <T> CompletableFuture<T> eval(Script script, ScriptOutputType type, String[] keys, String[] args) {
        if (closed) {
            return CompletableFuture.failedFuture(new RedisConnectionException("closed"));
        }
        CompletableFuture<Commands> connected = connection();
        if (connected.isDone() && !connected.isCompletedExceptionally()) {
            return connected.join().eval(script, type, keys, args);
        }
        return connected.thenCompose(c -> c.eval(script, type, keys, args));
    }

    /** A stage that completes when connected (the script loaded), or fails with the current attempt, or once closed. */
    public CompletableFuture<Void> connected() {
        if (closed) {
            return CompletableFuture.failedFuture(new RedisConnectionException("closed"));
        }
        return connection().thenApply(commands -> null);
    }

    /** The current attempt, or a new one when it failed and a retry is due. */
    private CompletableFuture<Commands> connection() {
        CompletableFuture<Commands> current = attempt.get();
        if (current.isCompletedExceptionally() && !closed && System.nanoTime() - nextAttempt >= 0) {
            return connect();
        }
        return current;
    }

    private CompletableFuture<Commands> connect() {
        CompletableFuture<Commands> current = attempt.get();
        CompletableFuture<Commands> next = new CompletableFuture<>();
        if (!attempt.compareAndSet(current, next)) {
            return attempt.get();
        }
        nextAttempt = System.nanoTime() + RETRY_INTERVAL_NANOS;
        CompletableFuture<? extends StatefulConnection<String, String>> connecting;
        try {
            connecting = cluster
                    // the cluster client connects only once it knows the topology
                    ? clusterClient.refreshPartitionsAsync().toCompletableFuture()
                            .thenCompose(topology -> clusterClient.connectAsync(StringCodec.UTF8))
                    : client.connectAsync(StringCodec.UTF8, uri).toCompletableFuture();
        } catch (RuntimeException e) {
            next.completeExceptionally(e);
            return next;
        }
        connecting.whenComplete((connection, failure) -> {
            if (failure != null) {
                nextAttempt = System.nanoTime() + RETRY_INTERVAL_NANOS;
                next.completeExceptionally(unwrap(failure));
            } else if (closed) {
                connection.closeAsync();
                next.completeExceptionally(new RedisConnectionException("closed"));
            } else {
                preload(new Commands(connection, scripting(connection)), next);
            }
        });
        return next;
    }

    /**
     * Loads the scripts before the connection serves its first request, so that the first
     * {@code EVALSHA}s find them (and a give-back cannot overtake a later request through the
     * {@code EVAL} fallback). Not loading them (e.g. an ACL without {@code SCRIPT}) is no failure.
     */
    private static void preload(Commands commands, CompletableFuture<Commands> connected) {
        commands.scripting.scriptLoad(Script.COUNTS.text()).toCompletableFuture()
                .whenComplete((loaded, failure) -> connected.complete(commands));
    }

    @SuppressWarnings("unchecked")
    private RedisScriptingAsyncCommands<String, String> scripting(StatefulConnection<String, String> connection) {
        if (connection instanceof io.lettuce.core.cluster.api.StatefulRedisClusterConnection<?, ?> c) {
            return (RedisScriptingAsyncCommands<String, String>) c.async();
        }
        return ((io.lettuce.core.api.StatefulRedisConnection<String, String>) connection).async();
    }

    /** The cause of a failed stage, without the {@link CompletionException} wrapper. */
    public static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** Closes the connection and releases the client's threads; waits at most a few seconds. */
    @Override
    public void close() {
        closed = true;
        CompletableFuture<Commands> current = attempt.get();
        Commands commands = current == null || current.isCompletedExceptionally() ? null : current.getNow(null);
        if (commands != null) {
            commands.connection.close();
        }
        if (cluster) {
            clusterClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        } else {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }

    /** An open connection and its script commands. */
    private record Commands(StatefulConnection<String, String> connection,
                            RedisScriptingAsyncCommands<String, String> scripting) {

        <T> CompletableFuture<T> eval(Script script, ScriptOutputType type, String[] keys, String[] args) {
            CompletableFuture<T> sha = scripting.<T>evalsha(script.sha(), type, keys, args).toCompletableFuture();
            return sha.exceptionallyCompose(failure -> unwrap(failure) instanceof RedisNoScriptException
                    ? scripting.<T>eval(script.text(), type, keys, args).toCompletableFuture()
                    : CompletableFuture.failedFuture(unwrap(failure)));
        }
    }
}
