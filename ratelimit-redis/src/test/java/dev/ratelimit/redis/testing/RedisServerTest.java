package dev.ratelimit.redis.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/**
 * A test Redis whose port was taken between choosing it and binding it starts on another one, and does not take the
 * Redis that won the port for its own.
 */
class RedisServerTest {

    @Test
    void aPortWonByAnotherRedisIsLeftToItAndTheNextOneIsTried() throws Exception {
        try (RedisServer first = new RedisServer(RedisServer.defaultBinary(), List.of())) {
            first.start();
            // the first port offered is the one the first Redis listens on: it answers PING there, but is not ours
            try (RedisServer second = new RedisServer(RedisServer.defaultBinary(), List.of(),
                    takenThenFree(first.port()))) {
                second.start();
                assertThat(second.port()).isNotEqualTo(first.port());
                try (Resp resp = new Resp(second.port())) {
                    assertThat(resp.string("INFO", "server")).contains("process_id:" + second.pid() + "\r\n");
                }
            }
        }
    }

    @Test
    void aPortHeldByAnotherProcessIsSkipped() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             RedisServer redis = new RedisServer(RedisServer.defaultBinary(), List.of(),
                     takenThenFree(taken.getLocalPort()))) {
            redis.start();
            assertThat(redis.port()).isNotEqualTo(taken.getLocalPort());
            try (Resp resp = new Resp(redis.port())) {
                assertThat(resp.call("PING")).isEqualTo("PONG");
            }
        }
    }

    @Test
    void aPortThatStaysTakenFailsNamingEveryPortTried() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             RedisServer redis = new RedisServer(RedisServer.defaultBinary(), List.of(), taken::getLocalPort)) {
            assertThatThrownBy(redis::start).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("did not start on ports [" + taken.getLocalPort() + ", ")
                    .hasMessageContaining("Address already in use");
        }
    }

    private static IntSupplier takenThenFree(int taken) {
        AtomicInteger asked = new AtomicInteger();
        return () -> asked.getAndIncrement() == 0 ? taken : freePort();
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
