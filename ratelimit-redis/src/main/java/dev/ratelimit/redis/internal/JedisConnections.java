package dev.ratelimit.redis.internal;

import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.providers.ConnectionProvider;

/**
 * The connections to one standalone Redis that {@link JedisTransport}'s calls take turns on: at most {@code most} at
 * once, made when no idle one is left, and kept once made. A thread takes one ({@link #getConnection}), runs its
 * command and gives it back by closing it; a connection that broke (an I/O error, a timeout) is closed for good then.
 *
 * <p>Why not Jedis' own pool (commons-pool): it locks twice per call and reads the clock four times (its statistics),
 * some 2% of a request's CPU here. This one costs a call two compare-and-sets on a free connection: a semaphore for the
 * bound and a lock-free stack of idle connections, the last given back taken first (its buffers are warm).
 *
 * <p>Thread-safe. Not API.
 */
final class JedisConnections implements ConnectionProvider {

    private final HostAndPort where;
    private final JedisClientConfig config;
    private final int most;
    private final long waitMillis;
    /** One permit for each connection that may be held at once. */
    private final Semaphore free;
    private final ConcurrentLinkedDeque<Pooled> idle = new ConcurrentLinkedDeque<>();
    private volatile boolean closed;

    /**
     * @param most       the connections held at once at most; more callers wait for one
     * @param waitMillis how long a caller waits for one to be given back, in milliseconds
     */
    JedisConnections(HostAndPort where, JedisClientConfig config, int most, long waitMillis) {
        this.where = where;
        this.config = config;
        this.most = most;
        this.waitMillis = waitMillis;
        this.free = new Semaphore(most);
    }

    /**
     * An idle connection, else a new one (connected, authenticated, its database selected); closing it gives it back.
     *
     * @throws JedisConnectionException when {@code most} are held for longer than the wait, or a new one cannot
     *                                  connect
     */
    @Override
    public Connection getConnection() {
        try {
            if (!free.tryAcquire() && !free.tryAcquire(waitMillis, TimeUnit.MILLISECONDS)) {
                throw new JedisConnectionException("no Redis connection free within " + waitMillis + " ms: all " + most
                        + " are held by calls on their way");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JedisConnectionException("interrupted while waiting for a Redis connection", e);
        }
        Pooled connection = idle.pollFirst();
        try {
            if (connection == null) {
                connection = new Pooled(this);
            }
        } catch (RuntimeException e) {
            free.release();
            throw e;
        }
        connection.held = true;
        return connection;
    }

    /** A standalone Redis has one node: the same as {@link #getConnection()}. */
    @Override
    public Connection getConnection(CommandArguments args) {
        return getConnection();
    }

    private void giveBack(Pooled connection) {
        if (connection.isBroken() || closed) {
            connection.closeSocket();
        } else {
            idle.offerFirst(connection);
            if (closed && idle.remove(connection)) { // closed meanwhile, after it drained the idle ones
                connection.closeSocket();
            }
        }
        free.release();
    }

    /** Closes the idle connections; each held one is closed when it is given back. */
    @Override
    public void close() {
        closed = true;
        for (Pooled connection; (connection = idle.pollFirst()) != null; ) {
            connection.closeSocket();
        }
    }

    /** Idle ones, for tests. */
    int idle() {
        return idle.size();
    }

    /** A connection of the pool: {@link #close} gives it back. */
    private static final class Pooled extends Connection {

        private final JedisConnections pool;
        /** Taken and not given back yet: a second close gives nothing back. */
        boolean held;

        Pooled(JedisConnections pool) {
            super(pool.where, pool.config);
            this.pool = pool;
        }

        @Override
        public void close() {
            if (held) {
                held = false;
                pool.giveBack(this);
            }
        }

        void closeSocket() {
            try {
                disconnect();
            } catch (RuntimeException ignored) {
                // a broken connection's socket: nothing more to do
            }
        }
    }
}
