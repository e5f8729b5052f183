package dev.ratelimit.redis.internal;

import dev.ratelimit.redis.transport.RedisScript;
import dev.ratelimit.redis.transport.RedisTransport;
import dev.ratelimit.redis.transport.ScriptCall;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisStringAsyncCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The store's transport on Lettuce: one connection to Redis (standalone, Sentinel or Cluster) shared by every
 * request, and one more for announcements, with two I/O threads of Lettuce's own.
 *
 * <p>How a call names the script: on a single Redis (or Sentinel's master) of version 7 or later, the connection loads
 * the script as a function library and calls it with {@code FCALL} (Redis then makes the script's local functions once,
 * not on every call); elsewhere (an older Redis, a cluster, an ACL without {@code FUNCTION}) it loads the script and
 * calls it with {@code EVALSHA}. A call that finds neither loaded (Redis restarted or flushed) is sent again as
 * {@code EVAL}, and the function library loaded again.
 *
 * <p>What a call costs: its command writes itself into Netty's buffer ({@link ScriptCommand}: no argument is turned
 * into text first) and reads its reply into the call's array of integers. Commands are written together: the
 * connection does not flush each one; a call that finds nothing on its way flushes at once (a hand-off to the I/O
 * thread), and calls made while others are on their way are flushed by the I/O thread itself when the next reply
 * arrives, in one write, without waking anything. So under load most calls cost no hand-off, and Redis reads several
 * scripts per read; with one call at a time it is one flush per call, as before. Each is still its own script call.
 *
 * <p>Connecting never blocks a caller and never fails the application: the first attempt starts on construction;
 * while it has failed, calls fail at once, and the first call after {@link #RETRY_INTERVAL_NANOS} starts the next
 * one. Once connected, Lettuce reconnects by itself (jittered back-off, at most a second apart) and rejects commands
 * while disconnected instead of queueing them, so an outage answers at once rather than at the timeout. A command
 * Redis does not answer within the timeout fails (Lettuce's command timeout), so commands never pile up behind a
 * Redis that hangs.
 *
 * <p>Concurrency: {@code attempt} holds the current connection attempt, replaced by compare-and-set only when it
 * has failed and {@code nextAttempt} (written by the winner before it publishes) has come. {@code outstanding}
 * counts the commands dispatched and not yet completed: a sender that raises it from 0 flushes; every completion
 * that leaves it above 0 flushes; so every command dispatched is flushed by someone after its dispatch.
 *
 * <p>One job, just over 400 lines: carrying the store's calls over Lettuce (connecting, naming the script, writing
 * calls together, reading replies, announcements).
 */
public final class LettuceTransport implements RedisTransport {

    static final long RETRY_INTERVAL_NANOS = 1_000_000_000L;
    private static final Duration MIN_CONNECT_TIMEOUT = Duration.ofSeconds(2);

    private final RedisURI uri;
    private final boolean cluster;
    private final ClientResources resources;
    private final RedisClient client;
    private final RedisClusterClient clusterClient;
    private final RedisScript script = RedisScript.COUNTS;
    final byte[] sha = script.shaBytes();
    final byte[] text = script.textBytes();
    final byte[] function = script.functionNameBytes();
    /** How calls name the script: chosen when the connection is made; {@code SCRIPT} while the library is reloaded. */
    private volatile ScriptCommand.Form form = ScriptCommand.Form.SCRIPT;
    private final AtomicBoolean reloading = new AtomicBoolean();
    private final AtomicReference<CompletableFuture<StatefulConnection<String, String>>> attempt = new AtomicReference<>();
    private final AtomicInteger outstanding = new AtomicInteger();
    private volatile long nextAttempt;
    private volatile boolean closed;
    private volatile StatefulConnection<String, String> announcements;
    /** The connection once made (it reconnects by itself), or null. */
    private volatile StatefulConnection<String, String> live;

    /**
     * @param uri     where Redis is (a seed node when {@code cluster})
     * @param cluster whether to talk the Redis Cluster protocol
     * @param timeout the command timeout, and the connect timeout if longer than 2 s
     */
    public LettuceTransport(RedisURI uri, boolean cluster, Duration timeout) {
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

    @Override
    public void send(ScriptCall call) {
        if (closed) {
            call.failed(new RedisConnectionException("closed"));
            return;
        }
        CompletableFuture<StatefulConnection<String, String>> connected = connection();
        if (connected.isDone() && !connected.isCompletedExceptionally()) {
            dispatch(connected.join(), new ScriptCommand(this, call, form, routing(call)));
        } else {
            connected.whenComplete((connection, failure) -> {
                if (failure == null) {
                    dispatch(connection, new ScriptCommand(this, call, form, routing(call)));
                } else {
                    call.failed(unwrap(failure));
                }
            });
        }
    }

    /** Sends {@code command}; flushes it when nothing else is on its way. */
    void dispatch(StatefulConnection<String, String> connection, ScriptCommand command) {
        try {
            connection.dispatch(command);
        } catch (RuntimeException e) {
            command.call.failed(e);
            return;
        }
        if (outstanding.getAndIncrement() == 0) {
            connection.flushCommands();
        }
    }

    /** A command completed (answered, failed or cancelled): the commands dispatched meanwhile go out now. */
    void completed() {
        if (outstanding.decrementAndGet() > 0) {
            StatefulConnection<String, String> connection = live;
            if (connection != null) {
                connection.flushCommands();
            }
        }
    }

    /**
     * Redis did not know the script or function named as {@code failed}: the same call as {@code EVAL}, which also
     * caches the script; a function library missing is loaded again, calls naming the script meanwhile.
     */
    void resendAsText(ScriptCall call, ScriptCommand.Form failed) {
        StatefulConnection<String, String> connection = live;
        if (connection == null) {
            call.failed(new RedisConnectionException("not connected"));
            return;
        }
        if (failed == ScriptCommand.Form.FUNCTION && connection instanceof StatefulRedisConnection<String, String> c
                && reloading.compareAndSet(false, true)) {
            form = ScriptCommand.Form.SCRIPT;
            loadFunction(c).whenComplete((loaded, failure) -> reloading.set(false));
        }
        dispatch(connection, new ScriptCommand(this, call, ScriptCommand.Form.TEXT, routing(call)));
    }

    /**
     * Loads the function library on {@code connection} (an instance may have loaded it first: that is as good); on
     * success, calls name the function from now on. Completes with whether it is there; never fails.
     */
    private CompletionStage<Boolean> loadFunction(StatefulRedisConnection<String, String> connection) {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        CompletionStage<String> loading;
        try {
            loading = connection.async().functionLoad(script.functionLibrary());
        } catch (RuntimeException e) {
            done.complete(false);
            return done;
        }
        connection.flushCommands();
        loading.whenComplete((name, failure) -> {
            boolean there = failure == null || RedisScript.libraryLoaded(unwrap(failure).getMessage());
            if (there) {
                form = ScriptCommand.Form.FUNCTION;
            }
            done.complete(there);
        });
        return done;
    }

    /** On a cluster, the first key, by which Lettuce finds the node of the call's slot; elsewhere none is needed. */
    private CommandArgs<String, String> routing(ScriptCall call) {
        if (!cluster || call.keys() == 0) {
            return null;
        }
        return new CommandArgs<>(StringCodec.UTF8).addKey(ByteBufArguments.keyText(call));
    }

    @Override
    public CompletionStage<Void> connected() {
        if (closed) {
            return CompletableFuture.failedFuture(new RedisConnectionException("closed"));
        }
        return connection().thenApply(connection -> null);
    }

    @Override
    public boolean unreachable(Throwable failure) {
        Throwable t = unwrap(failure);
        return !(t instanceof RedisCommandExecutionException);
    }

    /** The current attempt, or a new one when it failed and a retry is due. */
    private CompletableFuture<StatefulConnection<String, String>> connection() {
        CompletableFuture<StatefulConnection<String, String>> current = attempt.get();
        if (current.isCompletedExceptionally() && !closed && System.nanoTime() - nextAttempt >= 0) {
            return connect();
        }
        return current;
    }

    private CompletableFuture<StatefulConnection<String, String>> connect() {
        CompletableFuture<StatefulConnection<String, String>> current = attempt.get();
        CompletableFuture<StatefulConnection<String, String>> next = new CompletableFuture<>();
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
                connection.setAutoFlushCommands(false);
                connection.addListener(new RedisConnectionStateListener() {
                    @Override
                    public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress address) {
                        connection.flushCommands(); // anything left in the buffer when the connection dropped
                    }
                });
                preload(connection, next);
            }
        });
        return next;
    }

    /**
     * Loads the function library (a single Redis of version 7 or later), or else the script, before the connection
     * serves its first request, so that the first calls find it (and a give-back cannot overtake a later request
     * through the {@code EVAL} fallback). Loading neither (e.g. an ACL without {@code FUNCTION} and {@code SCRIPT})
     * is no failure: calls then go as {@code EVALSHA}, and {@code EVAL} when Redis does not know the script.
     */
    private void preload(StatefulConnection<String, String> connection, CompletableFuture<StatefulConnection<String, String>> connected) {
        CompletionStage<Boolean> function = connection instanceof StatefulRedisConnection<String, String> single
                ? loadFunction(single) : CompletableFuture.completedFuture(false);
        function.thenCompose(loaded -> {
            if (loaded) {
                return CompletableFuture.completedFuture(null);
            }
            CompletionStage<String> loading;
            if (connection instanceof StatefulRedisClusterConnection<String, String> c) {
                loading = c.async().scriptLoad(script.text());
            } else {
                loading = ((StatefulRedisConnection<String, String>) connection).async().scriptLoad(script.text());
            }
            connection.flushCommands();
            return loading.handle((done, failure) -> null);
        }).whenComplete((done, failure) -> {
            live = connection;
            connected.complete(connection);
        });
    }

    /** {@code SET key value NX} then {@code GET key}, one after the other on the connection of calls. */
    @Override
    public CompletionStage<String> setIfAbsent(String key, String value) {
        return connected().thenCompose(connected -> {
            StatefulConnection<String, String> connection = live;
            RedisStringAsyncCommands<String, String> commands = connection instanceof StatefulRedisClusterConnection<String, String> c
                    ? c.async() : ((StatefulRedisConnection<String, String>) connection).async();
            RedisFuture<String> set = commands.set(key, value, SetArgs.Builder.nx());
            RedisFuture<String> get = commands.get(key);
            connection.flushCommands();
            return set.thenCompose(done -> get);
        });
    }

    @Override
    public boolean subscribe(String channel, Consumer<String> message, Runnable subscribed) {
        subscribeNow(channel, message, subscribed);
        return true;
    }

    private void subscribeNow(String channel, Consumer<String> message, Runnable subscribed) {
        if (closed) {
            return;
        }
        CompletionStage<? extends StatefulRedisPubSubConnection<String, String>> connecting;
        try {
            connecting = cluster ? clusterClient.connectPubSubAsync(StringCodec.UTF8)
                    : client.connectPubSubAsync(StringCodec.UTF8, uri);
        } catch (RuntimeException e) {
            retrySubscribe(channel, message, subscribed);
            return;
        }
        connecting.whenComplete((connection, failure) -> {
            if (failure != null) {
                retrySubscribe(channel, message, subscribed);
                return;
            }
            if (closed) {
                connection.closeAsync();
                return;
            }
            announcements = connection;
            connection.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String from, String text) {
                    if (channel.equals(from)) {
                        message.accept(text);
                    }
                }

                @Override
                public void subscribed(String to, long count) {
                    if (channel.equals(to)) {
                        subscribed.run(); // the first time, and after Lettuce resubscribed a reconnected connection
                    }
                }
            });
            connection.async().subscribe(channel).whenComplete((done, refused) -> {
                if (refused != null) { // e.g. an ACL without SUBSCRIBE: announcements stay off
                    connection.closeAsync();
                }
            });
        });
    }

    private void retrySubscribe(String channel, Consumer<String> message, Runnable subscribed) {
        if (!closed) {
            resources.eventExecutorGroup().schedule(() -> subscribeNow(channel, message, subscribed),
                    RETRY_INTERVAL_NANOS, TimeUnit.NANOSECONDS);
        }
    }

    /** The cause of a failed stage, without the {@link CompletionException} wrapper. */
    static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** Closes the connections and releases the client's threads; waits at most a few seconds. */
    @Override
    public void close() {
        closed = true;
        StatefulConnection<String, String> subscription = announcements;
        if (subscription != null) {
            subscription.close();
        }
        StatefulConnection<String, String> connection = live;
        if (connection != null) {
            connection.close();
        }
        if (cluster) {
            clusterClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        } else {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
