package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.testing.Await;
import dev.ratelimit.core.testing.ClearKeyNowhere;
import dev.ratelimit.core.testing.LogRecords;
import dev.ratelimit.micrometer.MicrometerRateLimitMetrics;
import dev.ratelimit.redis.testing.RedisServerExtension;
import dev.ratelimit.redis.testing.Resp;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.logging.Level;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A username counted per argument through two instances on one real Redis is never written in clear
 * (docs/login-protection.md, "Counting by an argument"): neither in any Redis key or value (scanned), nor in any
 * command Redis received (MONITOR), nor in any log record of the library or of Lettuce, nor in any metric's name, tag
 * or value (Micrometer), nor in what the admin API answers; in any case, and not even its first word.
 */
class ClearKeyNowhereTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final List<RedisRateLimitStore> stores = new ArrayList<>();
    private final String prefix = "clear-" + UUID.randomUUID() + ":";
    private final List<SimpleMeterRegistry> registries = List.of(new SimpleMeterRegistry(), new SimpleMeterRegistry());
    /** DEBUG and TRACE lines too. */
    private final LogRecords logged = LogRecords.on(LogRecords.LIBRARY, "io.lettuce")
            .level(Level.ALL, LogRecords.LIBRARY, "io.lettuce");

    @AfterEach
    void close() {
        logged.close();
        stores.forEach(RedisRateLimitStore::close);
    }

    @Test
    void aUsernameCountedByTwoInstancesIsInNoRedisKeyValueOrCommandNoLogNoMetricAndNoAdminAnswer() throws Exception {
        try (Monitor monitor = new Monitor()) {
            ClearKeyNowhere.run(TIMEOUT, this::engine, partition -> {
                assertThat(partition).startsWith("arg:");
                monitor.awaitCommandContaining(partition.substring("arg:".length())); // the last writes reached Redis
                List<String> seen = new ArrayList<>(List.of(monitor.text()));
                seen.addAll(redisKeysAndValues());
                return seen;
            }, this::meters, logged);
        }
    }

    /** Every key in Redis and every value, whatever its type. */
    private static List<String> redisKeysAndValues() {
        List<String> seen = new ArrayList<>();
        try (Resp resp = REDIS.client()) {
            String cursor = "0";
            do {
                List<?> reply = (List<?>) resp.call("SCAN", cursor, "COUNT", "1000");
                cursor = (String) reply.get(0);
                for (Object key : (List<?>) reply.get(1)) {
                    String k = (String) key;
                    seen.add(k);
                    Object value = switch (resp.string("TYPE", k)) {
                        case "string" -> new String(resp.bytes("GET", k), StandardCharsets.ISO_8859_1);
                        case "hash" -> resp.call("HGETALL", k);
                        case "list" -> resp.call("LRANGE", k, "0", "-1");
                        case "set" -> resp.call("SMEMBERS", k);
                        case "zset" -> resp.call("ZRANGE", k, "0", "-1", "WITHSCORES");
                        default -> resp.call("DUMP", k);
                    };
                    seen.add(String.valueOf(value));
                }
            } while (!cursor.equals("0"));
        }
        assertThat(seen).as("counts in Redis").anySatisfy(k -> assertThat(k).contains("login-account"));
        return seen;
    }

    /** Instance {@code i}: an engine on a store and Lettuce client of its own, its metrics in a registry of its own. */
    private RateLimitEngine engine(int i) {
        RedisRateLimitStore store = RedisRateLimitStore.builder(REDIS.uri()).keyPrefix(prefix).timeout(TIMEOUT).build();
        stores.add(store);
        assertThat(store.awaitConnection(Duration.ofSeconds(10))).isTrue();
        return RateLimitEngine.builder(ClearKeyNowhere.settings(TIMEOUT), store)
                .metrics(new MicrometerRateLimitMetrics(registries.get(i))).build();
    }

    /** The name, tags and measurements of every meter of instance {@code i}. */
    private List<String> meters(int i) {
        return registries.get(i).getMeters().stream().flatMap(meter -> Stream.concat(Stream.of(meter.getId()),
                StreamSupport.stream(meter.measure().spliterator(), false)).map(String::valueOf)).toList();
    }

    /** MONITOR on a connection of its own: every command Redis receives, as Redis writes it, until closed. */
    private static final class Monitor implements AutoCloseable {

        private final Socket socket = new Socket(InetAddress.getLoopbackAddress(), REDIS.port());
        private final StringBuffer text = new StringBuffer();
        private final Thread reader;

        Monitor() throws Exception {
            OutputStream out = socket.getOutputStream();
            out.write("*1\r\n$7\r\nMONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder ok = new StringBuilder();
            for (int c = in.read(); c != '\n' && c >= 0; c = in.read()) {
                ok.append((char) c);
            }
            assertThat(ok.toString()).startsWith("+OK");
            reader = new Thread(() -> {
                byte[] buffer = new byte[8192];
                try {
                    for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                        text.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
                    }
                } catch (java.io.IOException closed) {
                    // the socket was closed: done
                }
            }, "monitor");
            reader.setDaemon(true);
            reader.start();
        }

        void awaitCommandContaining(String part) throws Exception {
            Await.until("a command with " + part + " monitored", 15,
                    () -> text.indexOf(part) >= 0);
        }

        String text() {
            return text.toString();
        }

        @Override
        public void close() throws Exception {
            socket.close();
            reader.join(5_000);
        }
    }
}
