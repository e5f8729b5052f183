package dev.ratelimit.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.redis.testing.RedisServerExtension;
import dev.ratelimit.redis.testing.Resp;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The pool of the Jedis transport's connections to a standalone Redis, against a real one: a connection given back is
 * the next one taken, no more than the bound are ever open, a broken one is closed instead of kept, and closing the
 * pool closes the idle ones. Connections are counted as Redis sees them ({@code CLIENT LIST}, by their name).
 */
class JedisConnectionsTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static JedisConnections pool(String name, int most, long waitMillis) {
        return new JedisConnections(new HostAndPort("127.0.0.1", REDIS.port()),
                DefaultJedisClientConfig.builder().clientName(name).resp2().build(), most, waitMillis);
    }

    @Test
    void aConnectionGivenBackIsTheNextOneTaken() throws Exception {
        try (JedisConnections pool = pool("reuse", 4, 1_000); Resp admin = REDIS.client()) {
            Connection first = pool.getConnection();
            assertThat(first.ping()).isTrue();
            first.close();
            assertThat(pool.idle()).isEqualTo(1);

            Connection second = pool.getConnection();
            assertThat(second).isSameAs(first);
            second.close();
            second.close(); // a second close gives nothing back twice
            assertThat(pool.idle()).isEqualTo(1);
            assertThat(connectionsNamed(admin, "reuse")).isEqualTo(1);
        }
    }

    @Test
    void manyThreadsNeverHoldMoreThanTheBound() throws Exception {
        int most = 3;
        int threads = 12;
        AtomicInteger held = new AtomicInteger();
        AtomicInteger mostHeld = new AtomicInteger();
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try (JedisConnections pool = pool("bound", most, 10_000); Resp admin = REDIS.client()) {
            Future<?>[] done = new Future<?>[threads];
            for (int t = 0; t < threads; t++) {
                done[t] = executor.submit(() -> {
                    for (int i = 0; i < 200; i++) {
                        try (Connection connection = pool.getConnection()) {
                            mostHeld.accumulateAndGet(held.incrementAndGet(), Math::max);
                            connection.executeCommand(Protocol.Command.PING);
                            held.decrementAndGet();
                        }
                    }
                    return null;
                });
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
            assertThat(mostHeld.get()).isBetween(1, most);
            assertThat(connectionsNamed(admin, "bound")).isBetween(1, most);
            assertThat(pool.idle()).isEqualTo(connectionsNamed(admin, "bound"));
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void aCallerFindingEveryConnectionHeldFailsAfterTheWaitNamingTheBound() throws Exception {
        try (JedisConnections pool = pool("full", 1, 50)) {
            Connection only = pool.getConnection();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread other = new Thread(() -> {
                try {
                    pool.getConnection().close();
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            other.start();
            other.join(10_000);
            assertThat(failure.get()).isInstanceOf(JedisConnectionException.class)
                    .hasMessageContaining("all 1 are held");
            only.close();
            pool.getConnection().close(); // free again once given back
        }
    }

    @Test
    void aBrokenConnectionIsClosedNotKept() throws Exception {
        try (JedisConnections pool = pool("broken", 2, 1_000); Resp admin = REDIS.client()) {
            Connection connection = pool.getConnection();
            connection.setBroken();
            connection.close();
            assertThat(pool.idle()).isZero();
            assertThat(connection.isConnected()).isFalse();
            assertThat(connectionsNamedOnceClosed(admin, "broken", 0)).isZero();
        }
    }

    @Test
    void closingThePoolClosesItsIdleConnectionsAndOneGivenBackAfterwards() throws Exception {
        try (Resp admin = REDIS.client()) {
            JedisConnections pool = pool("closing", 4, 1_000);
            Connection idle = pool.getConnection();
            Connection held = pool.getConnection();
            idle.close();
            assertThat(connectionsNamed(admin, "closing")).isEqualTo(2);

            pool.close();
            held.close();
            assertThat(idle.isConnected()).isFalse();
            assertThat(held.isConnected()).isFalse();
            assertThat(connectionsNamedOnceClosed(admin, "closing", 0)).isZero();
        }
    }

    @Test
    void aRedisThatCannotBeReachedFailsTheCallerAndTakesNoSlot() throws Exception {
        JedisConnections pool = new JedisConnections(new HostAndPort("127.0.0.1", unusedPort()),
                DefaultJedisClientConfig.builder().connectionTimeoutMillis(500).resp2().build(), 1, 50);
        try (pool) {
            assertThatThrownBy(pool::getConnection).isInstanceOf(JedisConnectionException.class);
            // the failed attempt gave its slot back: the next one tries again instead of waiting for a free one
            assertThatThrownBy(pool::getConnection).isInstanceOf(JedisConnectionException.class)
                    .hasMessageNotContaining("are held");
        }
    }

    /** How many connections Redis has that carry {@code name}. */
    private static int connectionsNamed(Resp admin, String name) {
        return (int) Arrays.stream(admin.string("CLIENT", "LIST").split("\n"))
                .filter(line -> line.contains(" name=" + name + " ")).count();
    }

    /**
     * The connections named {@code name} once Redis counts {@code expected} of them (it sees a socket closed a moment
     * after the client closed it), or as it counts them after 5 s.
     */
    private static int connectionsNamedOnceClosed(Resp admin, String name, int expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        int count;
        while ((count = connectionsNamed(admin, name)) != expected && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return count;
    }

    private static int unusedPort() throws Exception {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
