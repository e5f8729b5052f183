package dev.ratelimit.examples.todos.peer;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.glassfish.jersey.server.ResourceConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * For the HTTP benchmarks only, off unless {@value #REDIS_URI} is set: one Redis {@code PING} per request, on the
 * request's thread, and nothing decided with it, beside whatever limiter the server runs (the in-process store, in the
 * benchmarks). The server's CPU per request with it, against the same server without it, is what one blocking round
 * trip to Redis costs a request here: the floor of every limiter that asks Redis once per request.
 *
 * <p>{@value #CLIENT}: {@code jedis} (a pooled Jedis client, as the Jedis transport and Bucket4j's Jedis proxy use) or
 * {@code socket} (a plain blocking socket per thread with no read timeout, writing {@code PING} and reading the reply:
 * the least a Java thread can do for a round trip; not a client to use, it never gives up on a Redis that hangs) or
 * {@code socket-timed} (the same with a read timeout, as every client sets one: Java then reads without blocking and
 * waits in {@code poll} when nothing has come yet).
 *
 * <p>Thread-safe: Jedis' pool is, and each thread has a socket of its own.
 */
@Priority(Priorities.AUTHENTICATION + 2)
public final class RoundTripFloor implements ContainerRequestFilter {

    /** Where Redis is ({@code redis://host:port}); unset: no floor. */
    public static final String REDIS_URI = "benchmark.floor.redis-uri";
    /** {@code jedis} (the default), {@code socket} or {@code socket-timed}. */
    public static final String CLIENT = "benchmark.floor.client";

    private static final byte[] PING = "PING\r\n".getBytes(StandardCharsets.US_ASCII);

    private final UnifiedJedis jedis;
    private final ThreadLocal<Socket> sockets;

    private RoundTripFloor(UnifiedJedis jedis, URI uri, int readTimeoutMillis) {
        this.jedis = jedis;
        this.sockets = jedis != null ? null : ThreadLocal.withInitial(() -> {
            try {
                Socket socket = new Socket(uri.getHost(), uri.getPort());
                socket.setTcpNoDelay(true);
                socket.setSoTimeout(readTimeoutMillis);
                return socket;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    public static void registerIfAsked(ResourceConfig config) {
        String uri = System.getProperty(REDIS_URI);
        if (uri == null || uri.isBlank()) {
            return;
        }
        String client = System.getProperty(CLIENT, "jedis");
        switch (client) {
            case "jedis" -> config.register(new RoundTripFloor(RedisClient.create(uri), null, 0));
            case "socket" -> config.register(new RoundTripFloor(null, URI.create(uri), 0));
            case "socket-timed" -> config.register(new RoundTripFloor(null, URI.create(uri), 2_000));
            default -> throw new IllegalArgumentException(
                    CLIENT + " must be jedis, socket or socket-timed, was \"" + client + "\"");
        }
    }

    @Override
    public void filter(ContainerRequestContext request) {
        if (jedis != null) {
            jedis.ping();
            return;
        }
        try {
            Socket socket = sockets.get();
            OutputStream out = socket.getOutputStream();
            out.write(PING);
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] reply = new byte[16];
            int read = 0;
            while (read < 2 || reply[read - 1] != '\n') { // +PONG\r\n, in one read but for a short one
                int n = in.read(reply, read, reply.length - read);
                if (n < 0) {
                    throw new IOException("Redis closed the connection");
                }
                read += n;
            }
        } catch (IOException e) {
            sockets.remove();
            throw new UncheckedIOException(e);
        }
    }
}
