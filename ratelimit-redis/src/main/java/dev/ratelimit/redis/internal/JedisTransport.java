package dev.ratelimit.redis.internal;

import dev.ratelimit.redis.transport.ArgumentSink;
import dev.ratelimit.redis.transport.CountKeys;
import dev.ratelimit.redis.transport.RedisScript;
import dev.ratelimit.redis.transport.RedisTransport;
import dev.ratelimit.redis.transport.ScriptCall;
import io.lettuce.core.RedisURI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import redis.clients.jedis.Builder;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.SetParams;

/**
 * The store's transport on Jedis, for servers whose request threads may block (Jersey on Grizzly, Open Liberty,
 * Payara): the thread that asks writes the script call and reads its reply itself, on a connection of a pool, with no
 * hand-off to an I/O thread and back. {@link #send} therefore returns with the call completed; it blocks the caller at
 * most the timeout to connect plus the timeout to answer (both the timeout given, Jedis' connect and socket timeouts),
 * and fails at once when the pool has no connection free within the timeout. Standalone Redis
 * or Redis Cluster ({@link JedisCluster}); no Sentinel (a Sentinel URI takes Lettuce).
 *
 * <p>How a call names the script, as on Lettuce: a single Redis of version 7 or later gets the function library
 * ({@code FCALL}), any other the script ({@code EVALSHA}); a call Redis answers that it knows neither (restarted,
 * flushed) is sent again as {@code EVAL} on the same thread, and the library loaded again.
 *
 * <p>No pipelining across threads: each thread holds its own connection while its call is on its way, so concurrent
 * calls are concurrent connections, at most {@link #MOST_CONNECTIONS}: a standalone Redis' in a pool of this module
 * ({@link JedisConnections}), a cluster's in Jedis' pools. Announcements need a subscription that listens all the
 * time, which a blocking client holds a thread for: {@link #subscribe} answers false, and {@code RedisRateLimitStore}
 * subscribes through Lettuce ({@link ThreadRoutedTransport}).
 *
 * <p>Connecting never fails the application: while Redis cannot be reached, calls fail (one timeout each, which the
 * engine's outage breaker makes one per outage), and the loading of the library is tried again, at most once a second,
 * when {@link #connected} is asked or a call succeeds.
 *
 * <p>Thread-safe: the pools are; {@code functions} is a volatile flag, {@code reloading} lets one thread load
 * the library again, and {@code loaded} is replaced by compare-and-set. Not API.
 */
public final class JedisTransport implements RedisTransport {

    /** The connections the pool keeps at most: more threads than this wait for one (at most the timeout). */
    static final int MOST_CONNECTIONS = 128;

    /** The reply as Jedis read it: a {@code Long}, a {@code List} of them, or (unexpected) anything else. */
    private static final Builder<Object> RAW = new Builder<>() {
        @Override
        public Object build(Object data) {
            return data;
        }
    };

    private final UnifiedJedis client;
    private final boolean cluster;
    /** A standalone Redis' connections (a cluster's are its client's). */
    private final JedisConnections connections;
    private final RedisScript script = RedisScript.COUNTS;
    private final byte[] sha = script.shaBytes();
    private final byte[] text = script.textBytes();
    private final byte[] function = script.functionNameBytes();
    private final AtomicBoolean reloading = new AtomicBoolean();
    /** The last loading ({@link #preload}): failed while Redis could not be reached, then tried again. */
    private final AtomicReference<CompletableFuture<Void>> loaded = new AtomicReference<>();
    private volatile long nextAttempt;
    /** Calls name the function library (loaded); else the script. */
    private volatile boolean functions;
    private volatile boolean closed;

    /**
     * @param uri     where Redis is ({@code redis://} or {@code rediss://}; a seed node when {@code cluster})
     * @param cluster whether to talk the Redis Cluster protocol
     * @param timeout how long a call may take to connect, and then to be answered
     * @throws IllegalArgumentException for a Sentinel URI
     */
    public JedisTransport(RedisURI uri, boolean cluster, Duration timeout) {
        if (!uri.getSentinels().isEmpty()) {
            throw new IllegalArgumentException("Jedis is not used with Sentinel here; choose Lettuce");
        }
        this.cluster = cluster;
        int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(millis).socketTimeoutMillis(millis)
                .clientName(uri.getClientName() == null ? "ratelimit-jedis" : uri.getClientName())
                .database(uri.getDatabase()).ssl(uri.isSsl()).resp2();
        // the URI's user and password, as Lettuce parsed them (static credentials: resolved at once)
        io.lettuce.core.RedisCredentials credentials = uri.getCredentialsProvider().resolveCredentials().block();
        if (credentials != null && credentials.hasUsername()) {
            config.user(credentials.getUsername());
        }
        if (credentials != null && credentials.hasPassword()) {
            config.password(new String(credentials.getPassword()));
        }
        JedisClientConfig clientConfig = config.build();
        HostAndPort where = new HostAndPort(uri.getHost(), uri.getPort());
        if (cluster) {
            this.connections = null;
            ConnectionPoolConfig pool = new ConnectionPoolConfig(); // for each node
            pool.setMaxTotal(MOST_CONNECTIONS);
            pool.setMaxIdle(MOST_CONNECTIONS);
            pool.setMinIdle(0);
            pool.setMaxWait(Duration.ofMillis(millis));
            pool.setTestOnBorrow(false);
            pool.setTestWhileIdle(false);
            pool.setJmxEnabled(false);
            this.client = new JedisCluster(Set.of(where), clientConfig, 5, pool);
        } else {
            this.connections = new JedisConnections(where, clientConfig, MOST_CONNECTIONS, millis);
            this.client = new UnifiedJedis(connections, 1, Duration.ofMillis(millis)); // one attempt: no retry
        }
        preloadAgain(null);
    }

    /**
     * Starts loading on a thread of its own when {@code failed} is the current attempt (null: none yet), at most once
     * per {@link LettuceTransport#RETRY_INTERVAL_NANOS}; callers never wait for it.
     */
    private void preloadAgain(CompletableFuture<Void> failed) {
        CompletableFuture<Void> next = new CompletableFuture<>();
        if (closed || !loaded.compareAndSet(failed, next)) {
            return;
        }
        nextAttempt = System.nanoTime() + LettuceTransport.RETRY_INTERVAL_NANOS;
        Thread preload = new Thread(() -> preload(next), "ratelimit-redis-jedis-preload");
        preload.setDaemon(true);
        preload.start();
    }

    /** The current attempt to load; a new one when it failed and a retry is due. */
    private CompletableFuture<Void> loading() {
        CompletableFuture<Void> current = loaded.get();
        if (current.isCompletedExceptionally() && System.nanoTime() - nextAttempt >= 0) {
            preloadAgain(current);
            return loaded.get();
        }
        return current;
    }

    /**
     * Loads the function library (a single Redis of version 7 or later), or else the script, before calls need it;
     * never fails: a call then names the script, and {@code EVAL} when Redis has neither. Completes {@link #connected}
     * once Redis answered (whatever it answered), or fails it when Redis could not be reached.
     */
    private void preload(CompletableFuture<Void> loaded) {
        try {
            if (!cluster && loadFunction()) {
                loaded.complete(null);
                return;
            }
            if (!cluster) {
                client.scriptLoad(script.text());
            } else {
                client.ping();
            }
            loaded.complete(null);
        } catch (JedisDataException answered) {
            loaded.complete(null); // e.g. an ACL without SCRIPT: calls go as EVALSHA, then EVAL
        } catch (RuntimeException unreachable) {
            loaded.completeExceptionally(unreachable);
        }
    }

    /** {@code FUNCTION LOAD} of the library; true when it is there (an instance may have loaded it first). */
    private boolean loadFunction() {
        try {
            client.functionLoad(script.functionLibrary());
            functions = true;
        } catch (JedisDataException e) {
            functions = RedisScript.libraryLoaded(e.getMessage()); // Redis 6 answers: unknown command
        }
        return functions;
    }

    @Override
    public void send(ScriptCall call) {
        if (closed) {
            call.failed(new IllegalStateException("closed"));
            return;
        }
        boolean byFunction = functions;
        Object reply;
        Connection connection = null;
        try {
            connection = cluster ? null : connections.getConnection();
            reply = reply(connection, call, byFunction);
        } catch (RuntimeException e) {
            call.failed(e);
            return;
        } finally {
            if (connection != null) {
                connection.close(); // back to the pool
            }
        }
        if (byFunction && !functions) {
            loadFunctionAgain(); // on no connection of this call's: the pool may be short of them
        }
        call.replied(read(reply, call.reply()));
        if (loaded.get().isCompletedExceptionally()) {
            loading(); // Redis answers again: the library (or script) is loaded in the background
        }
    }

    /**
     * The call's reply: named as {@code byFunction} says; when Redis knows neither (restarted, its scripts or functions
     * flushed), sent again as the text, and later calls name the script until the library is loaded again.
     */
    private Object reply(Connection connection, ScriptCall call, boolean byFunction) {
        try {
            return execute(connection, command(call, byFunction ? Protocol.Command.FCALL : Protocol.Command.EVALSHA,
                    byFunction ? function : sha));
        } catch (JedisDataException e) {
            if (!RedisScript.missing(e.getMessage())) {
                throw e;
            }
        }
        Object reply = execute(connection, command(call, Protocol.Command.EVAL, text));
        if (byFunction) {
            functions = false;
        }
        return reply;
    }

    /** The function library loaded again, by one thread at a time; calls name the script meanwhile. */
    private void loadFunctionAgain() {
        if (reloading.compareAndSet(false, true)) {
            try {
                loadFunction();
            } catch (RuntimeException ignored) {
                // calls keep naming the script
            } finally {
                reloading.set(false);
            }
        }
    }

    /** On {@code connection}, or through the cluster client when it is null (a cluster's: it finds the node). */
    private Object execute(Connection connection, CommandObject<Object> command) {
        return connection != null ? connection.executeCommand(command) : client.executeCommand(command);
    }

    /**
     * The command: {@code <command> <script> <keys> <key>... <argument>...}; on a cluster each key marked as one (its
     * slot picks the node), on a standalone Redis plain arguments (nothing reads them as keys).
     */
    private CommandObject<Object> command(ScriptCall call, Protocol.Command command, byte[] script) {
        int keys = call.keys();
        int arguments = call.arguments();
        CommandArguments args = new CommandArguments(command).add(script).add(keys);
        Arguments sink = new Arguments(args, cluster);
        for (int i = 0; i < keys; i++) {
            call.writeKey(i, sink);
        }
        sink.keys = false;
        for (int i = 0; i < arguments; i++) {
            call.writeArgument(i, sink);
        }
        return new CommandObject<>(args, RAW);
    }

    /** The reply's integers into {@code into}: their count, or -1 when it is not one integer or an array of them. */
    static int read(Object reply, long[] into) {
        if (reply instanceof Long value) {
            if (into.length == 0) {
                return -1;
            }
            into[0] = value;
            return 1;
        }
        if (reply instanceof List<?> list) {
            if (list.size() > into.length) {
                return -1;
            }
            for (int i = 0; i < list.size(); i++) {
                if (!(list.get(i) instanceof Long value)) {
                    return -1;
                }
                into[i] = value;
            }
            return list.size();
        }
        return -1;
    }

    @Override
    public CompletionStage<Void> connected() {
        return closed ? CompletableFuture.failedFuture(new IllegalStateException("closed")) : loading().copy();
    }

    /** Never: see the class comment. */
    @Override
    public boolean subscribe(String channel, Consumer<String> message, Runnable subscribed) {
        return false;
    }

    /** {@code SET key value NX} then {@code GET key}, on a thread of its own (the caller must not block). */
    @Override
    public CompletionStage<String> setIfAbsent(String key, String value) {
        return CompletableFuture.supplyAsync(() -> {
            client.set(key, value, new SetParams().nx());
            return client.get(key);
        }, task -> {
            Thread thread = new Thread(task, "ratelimit-redis-jedis-set");
            thread.setDaemon(true);
            thread.start();
        });
    }

    /** True unless Redis answered an error ({@link JedisDataException}). */
    @Override
    public boolean unreachable(Throwable failure) {
        return !(LettuceTransport.unwrap(failure) instanceof JedisDataException);
    }

    /** True when {@code failure} is one of Jedis'. */
    static boolean ours(Throwable failure) {
        return LettuceTransport.unwrap(failure) instanceof redis.clients.jedis.exceptions.JedisException;
    }

    @Override
    public void close() {
        closed = true;
        client.close();
        if (connections != null) {
            connections.close();
        }
    }

    /** A call's keys and arguments into Jedis' arguments; one per command. */
    private static final class Arguments implements ArgumentSink {

        private final CommandArguments args;
        boolean keys;

        Arguments(CommandArguments args, boolean keys) {
            this.args = args;
            this.keys = keys;
        }

        @Override
        public void bytes(byte[] value) {
            if (keys) {
                args.key(value);
            } else {
                args.add(value);
            }
        }

        @Override
        public void number(long value) {
            bytes(Long.toString(value).getBytes(StandardCharsets.US_ASCII));
        }

        @Override
        public void key(byte[] prefix, String partition, byte[] suffix) {
            bytes(CountKeys.key(prefix, partition, suffix));
        }
    }
}
