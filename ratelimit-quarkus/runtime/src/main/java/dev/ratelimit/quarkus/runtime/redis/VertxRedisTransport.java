package dev.ratelimit.quarkus.runtime.redis;

import dev.ratelimit.redis.transport.ArgumentSink;
import dev.ratelimit.redis.transport.CountKeys;
import dev.ratelimit.redis.transport.RedisScript;
import dev.ratelimit.redis.transport.RedisTransport;
import dev.ratelimit.redis.transport.ScriptCall;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisConnection;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import io.vertx.redis.client.ResponseType;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The Redis store's transport on a Vert.x Redis client (the application's Quarkus Redis client, or one made on
 * Quarkus' own Vert.x for {@code ratelimit.redis.uri}): on the Vert.x event loops, with no thread of its own.
 *
 * <p>One connection of the client carries every call, pipelined: Vert.x writes each request as it comes, and those
 * written while the event loop handles a read go out in one flush when the read is done, so calls made while others
 * are on their way share a write. A second connection carries the announcements (a subscribed connection is never
 * handed back to the client's pool). When a connection ends, the next call makes a new one; while connecting fails,
 * calls fail at once and a new attempt is made at most once a second.
 *
 * <p>How a call names the script: where Redis takes a function library (Redis 7 and later), the connection loads the
 * script as one and calls it with {@code FCALL}; elsewhere it loads the script and calls it with {@code EVALSHA}
 * ({@link RedisScript}). A call that finds neither (Redis restarted or flushed) is sent again as {@code EVAL}, and the
 * library loaded again.
 *
 * <p>Concurrency: {@code connection} holds the current attempt (a Vert.x future), replaced by compare-and-set when it
 * failed and {@code nextAttempt} has come, or when the connection it made ended.
 */
public final class VertxRedisTransport implements RedisTransport {

    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Vertx vertx;
    private final Redis client;
    private final boolean ownsClient;
    private final RedisScript script = RedisScript.COUNTS;
    private final byte[] sha = script.shaBytes();
    private final byte[] text = script.textBytes();
    private final byte[] function = script.functionNameBytes();
    /** Whether calls name the function (else the script): chosen when a connection is made. */
    private volatile boolean functions;
    private final AtomicReference<Future<RedisConnection>> connection = new AtomicReference<>();
    private volatile long nextAttempt;
    private volatile boolean closed;
    private volatile RedisConnection subscription;

    /**
     * @param client     the client whose connections it takes
     * @param ownsClient true when closing this closes the client too (one made for this store)
     */
    public VertxRedisTransport(Vertx vertx, Redis client, boolean ownsClient) {
        this.vertx = vertx;
        this.client = client;
        this.ownsClient = ownsClient;
        connect(null);
    }

    @Override
    public void send(ScriptCall call) {
        if (closed) {
            call.failed(new IllegalStateException("closed"));
            return;
        }
        Future<RedisConnection> current = connection();
        if (current.succeeded()) {
            send(current.result(), call, functions ? Command.FCALL : Command.EVALSHA);
        } else if (current.failed()) {
            call.failed(current.cause());
        } else {
            current.onComplete(made -> {
                if (made.succeeded()) {
                    send(made.result(), call, functions ? Command.FCALL : Command.EVALSHA);
                } else {
                    call.failed(made.cause());
                }
            });
        }
    }

    /** Sends {@code call} as {@code command}: {@code FCALL}, {@code EVALSHA} or {@code EVAL}. */
    private void send(RedisConnection on, ScriptCall call, Command command) {
        Request request = Request.cmd(command)
                .arg(command == Command.FCALL ? function : command == Command.EVALSHA ? sha : text).arg(call.keys());
        RequestArguments sink = new RequestArguments(request);
        for (int i = 0; i < call.keys(); i++) {
            call.writeKey(i, sink);
        }
        for (int i = 0; i < call.arguments(); i++) {
            call.writeArgument(i, sink);
        }
        on.send(request).onComplete(answered -> {
            if (answered.succeeded()) {
                call.replied(read(answered.result(), call.reply()));
                return;
            }
            Throwable failure = answered.cause();
            if (command != Command.EVAL && failure instanceof Response && RedisScript.missing(failure.getMessage())) {
                if (command == Command.FCALL) {
                    // Redis restarted or flushed (a new connection loads the library again), or a cluster whose other
                    // nodes lack it: the script, from now on
                    functions = false;
                }
                send(on, call, Command.EVAL); // Redis restarted, or its scripts were flushed
            } else {
                call.failed(failure);
            }
        });
    }

    /** The integers of a reply into {@code into}: how many, or -1 for anything but an integer or an array of them. */
    static int read(Response response, long[] into) {
        if (response == null) {
            return -1;
        }
        if (response.type() == ResponseType.NUMBER) {
            into[0] = response.toLong();
            return 1;
        }
        if (response.type() != ResponseType.MULTI || response.size() > into.length) {
            return -1;
        }
        for (int i = 0; i < response.size(); i++) {
            Response element = response.get(i);
            if (element == null || element.type() != ResponseType.NUMBER) {
                return -1;
            }
            into[i] = element.toLong();
        }
        return response.size();
    }

    /** The current connection (or attempt), or a new attempt when the last failed and a retry is due. */
    private Future<RedisConnection> connection() {
        Future<RedisConnection> current = connection.get();
        if (current == null || (current.failed() && System.nanoTime() - nextAttempt >= 0)) {
            return connect(current);
        }
        return current;
    }

    private Future<RedisConnection> connect(Future<RedisConnection> replacing) {
        io.vertx.core.Promise<RedisConnection> promise = io.vertx.core.Promise.promise();
        Future<RedisConnection> next = promise.future();
        if (!connection.compareAndSet(replacing, next)) {
            Future<RedisConnection> current = connection.get();
            return current != null ? current : next;
        }
        nextAttempt = System.nanoTime() + RETRY_NANOS;
        client.connect().onComplete(made -> {
            if (made.failed()) {
                nextAttempt = System.nanoTime() + RETRY_NANOS;
                promise.fail(made.cause());
                return;
            }
            RedisConnection c = made.result();
            if (closed) {
                c.close();
                promise.fail(new IllegalStateException("closed"));
                return;
            }
            c.exceptionHandler(failure -> ended(next));
            c.endHandler(end -> ended(next));
            load(c, promise);
        });
        return next;
    }

    /**
     * Loads the function library, or else (a Redis before 7, an ACL without {@code FUNCTION}) the script, before the
     * connection's first call, so that the first calls find it; loading neither is no failure. Then completes
     * {@code made} with the connection.
     */
    private void load(RedisConnection c, io.vertx.core.Promise<RedisConnection> made) {
        c.send(Request.cmd(Command.FUNCTION).arg("LOAD").arg(script.functionLibrary())).onComplete(library -> {
            if (library.succeeded() || RedisScript.libraryLoaded(String.valueOf(library.cause().getMessage()))) {
                functions = true;
                made.complete(c);
            } else {
                functions = false;
                c.send(Request.cmd(Command.SCRIPT).arg("LOAD").arg(text)).onComplete(loaded -> made.complete(c));
            }
        });
    }

    /** The connection of {@code attempt} ended: the next call makes a new one. */
    private void ended(Future<RedisConnection> attempt) {
        if (connection.compareAndSet(attempt, null) && !closed) {
            connect(null);
        }
    }

    /** {@code SET key value NX} then {@code GET key}, one after the other on the connection of calls. */
    @Override
    public CompletionStage<String> setIfAbsent(String key, String value) {
        CompletableFuture<String> kept = new CompletableFuture<>();
        connection().compose(on -> on.send(Request.cmd(Command.SET).arg(key).arg(value).arg("NX"))
                        .compose(set -> on.send(Request.cmd(Command.GET).arg(key))))
                .onComplete(got -> {
                    if (got.succeeded()) {
                        kept.complete(got.result() == null ? null : got.result().toString());
                    } else {
                        kept.completeExceptionally(got.cause());
                    }
                });
        return kept;
    }

    @Override
    public CompletionStage<Void> connected() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        connection().onComplete(made -> {
            if (made.succeeded()) {
                done.complete(null);
            } else {
                done.completeExceptionally(made.cause());
            }
        });
        return done;
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
        client.connect().onComplete(made -> {
            if (made.failed()) {
                retrySubscribe(channel, message, subscribed);
                return;
            }
            RedisConnection c = made.result();
            if (closed) {
                c.close();
                return;
            }
            subscription = c;
            boolean[] ended = new boolean[1];
            Runnable again = () -> {
                if (!ended[0]) {
                    ended[0] = true;
                    retrySubscribe(channel, message, subscribed);
                }
            };
            c.handler(pushed -> {
                if (pushed != null && pushed.size() == 3 && "message".equals(String.valueOf(pushed.get(0)))
                        && channel.equals(String.valueOf(pushed.get(1)))) {
                    message.accept(String.valueOf(pushed.get(2)));
                }
            });
            c.exceptionHandler(failure -> again.run());
            c.endHandler(end -> again.run());
            c.send(Request.cmd(Command.SUBSCRIBE).arg(channel)).onComplete(done -> {
                if (done.succeeded()) {
                    subscribed.run();
                } else { // e.g. an ACL without SUBSCRIBE: announcements stay off
                    ended[0] = true;
                    c.close();
                }
            });
        });
    }

    private void retrySubscribe(String channel, Consumer<String> message, Runnable subscribed) {
        if (!closed) {
            vertx.setTimer(TimeUnit.NANOSECONDS.toMillis(RETRY_NANOS), id -> subscribeNow(channel, message, subscribed));
        }
    }

    /** An error Redis answered is a {@link Response}; anything else (no connection, an I/O error) is not. */
    @Override
    public boolean unreachable(Throwable failure) {
        return !(failure instanceof Response);
    }

    /** Closes its connections, and the client when it made it for this store. */
    @Override
    public void close() {
        closed = true;
        RedisConnection subscribed = subscription;
        if (subscribed != null) {
            subscribed.close();
        }
        Future<RedisConnection> current = connection.get();
        if (current != null && current.succeeded()) {
            current.result().close();
        }
        if (ownsClient) {
            client.close();
        }
    }

    /** Writes a call's keys and arguments as arguments of a Vert.x request. */
    private static final class RequestArguments implements ArgumentSink {
        private final Request request;

        RequestArguments(Request request) {
            this.request = request;
        }

        @Override
        public void bytes(byte[] value) {
            request.arg(value);
        }

        @Override
        public void number(long value) {
            request.arg(value);
        }

        @Override
        public void key(byte[] prefix, String partition, byte[] suffix) {
            request.arg(CountKeys.key(prefix, partition, suffix));
        }
    }
}
