package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.DeclaredOn;
import dev.ratelimit.core.declaration.KeyParameter;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.declaration.LimitResolver;
import dev.ratelimit.core.declaration.MethodDeclarations;
import dev.ratelimit.core.declaration.ResolvedLimits;
import dev.ratelimit.core.engine.BoundLimits;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.engine.RequestLedger;
import dev.ratelimit.micrometer.MicrometerRateLimitMetrics;
import dev.ratelimit.redis.testing.RedisServerExtension;
import dev.ratelimit.redis.testing.Resp;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
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

    private static final String USERNAME = "Zebulon-Secret-User";
    /** What must appear nowhere, lower-cased: the value, and a part of it. */
    private static final List<String> CLEAR = List.of("zebulon-secret-user", "zebulon");
    /** Held: JUL keeps loggers weakly, and with them their handlers. */
    private static final List<Logger> LOGGERS = List.of(Logger.getLogger("dev.ratelimit"), Logger.getLogger("io.lettuce"));

    private final List<RedisRateLimitStore> stores = new ArrayList<>();
    private final String prefix = "clear-" + UUID.randomUUID() + ":";
    private final ConcurrentLinkedQueue<LogRecord> logged = new ConcurrentLinkedQueue<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void listen() {
        LOGGERS.forEach(logger -> {
            logger.addHandler(capture);
            logger.setLevel(java.util.logging.Level.ALL); // DEBUG and TRACE lines too
        });
    }

    @AfterEach
    void close() {
        LOGGERS.forEach(logger -> {
            logger.removeHandler(capture);
            logger.setLevel(null);
        });
        stores.forEach(RedisRateLimitStore::close);
    }

    @Test
    void aUsernameCountedByTwoInstancesIsInNoRedisKeyValueOrCommandNoLogNoMetricAndNoAdminAnswer() throws Exception {
        SimpleMeterRegistry metricsA = new SimpleMeterRegistry();
        SimpleMeterRegistry metricsB = new SimpleMeterRegistry();
        List<String> seen = new ArrayList<>();
        try (Monitor monitor = new Monitor()) {
            RateLimitEngine a = engine(metricsA);
            RateLimitEngine b = engine(metricsB);
            BoundLimits onA = a.binder().bind(login());
            BoundLimits onB = b.binder().bind(login());

            // three wrong passwords spread over both instances, in three spellings of one account: then refused
            List<String> spellings = List.of(USERNAME, " zebulon-secret-user", "ZEBULON-SECRET-USER\u00a0");
            for (int i = 0; i < 3; i++) {
                assertThat(decide(i % 2 == 0 ? a : b, i % 2 == 0 ? onA : onB, spellings.get(i)).allowed()).isTrue();
            }
            for (int i = 0; i < 4; i++) {
                RateLimitDecision refused = decide(i % 2 == 0 ? a : b, i % 2 == 0 ? onA : onB, USERNAME);
                assertThat(refused.allowed()).as("one count for both instances and every spelling").isFalse();
                seen.add(refused.toString());
                seen.add(refused.partition());
            }
            // the admin API: the count by key, the most refused, a reset; then a success gives its permit back
            String partition = a.admin().keyPartition("login-account", USERNAME);
            seen.add(partition);
            seen.add(String.valueOf(a.admin().count("login-account", partition, null).toCompletableFuture()
                    .get(5, TimeUnit.SECONDS)));
            seen.add(String.valueOf(b.admin().refused("login-account", 10)));
            a.admin().reset("login-account", partition, null, "ops").toCompletableFuture().get(5, TimeUnit.SECONDS);
            RequestLedger ledger = b.ledger("anonymous");
            RateLimitDecision success = b.decide(ledger, onB, 1, USERNAME).get(5, TimeUnit.SECONDS);
            assertThat(success.allowed()).isTrue();
            b.succeeded(ledger, success);
            assertThat(partition).startsWith("arg:");
            monitor.awaitCommandContaining(partition.substring("arg:".length())); // the last writes reached Redis
            seen.add(monitor.text());
        }

        seen.addAll(redisKeysAndValues());
        for (LogRecord record : logged) {
            seen.add(record.getLoggerName() + " " + record.getMessage() + " " + List.of(record.getParameters() == null
                    ? new Object[0] : record.getParameters()) + " " + stackTrace(record.getThrown()));
        }
        for (SimpleMeterRegistry registry : List.of(metricsA, metricsB)) {
            for (Meter meter : registry.getMeters()) {
                seen.add(meter.getId().toString());
                meter.measure().forEach(m -> seen.add(m.toString()));
            }
        }

        assertThat(logged).as("the instances logged (the reset, the shadow limit)").isNotEmpty();
        assertThat(metricsA.getMeters()).as("the instances recorded metrics").isNotEmpty();
        assertThat(seen).allSatisfy(text -> assertThat(text.toLowerCase(Locale.ROOT)).doesNotContain(CLEAR));
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

    private RateLimitEngine engine(SimpleMeterRegistry registry) {
        RedisRateLimitStore store = RedisRateLimitStore.builder(REDIS.uri()).keyPrefix(prefix)
                .timeout(Duration.ofSeconds(5)).build();
        stores.add(store);
        assertThat(store.awaitConnection(Duration.ofSeconds(10))).isTrue();
        return RateLimitEngine.builder(RateLimitSettings.of(Map.of(RateLimitSettings.KEY_SECRET,
                        "a-secret-of-the-test-0123456789", "ratelimit.store.timeout-millis", "5000",
                        "ratelimit.limits.login-account-shadow.mode", "shadow")), store)
                .metrics(new MicrometerRateLimitMetrics(registry)).build();
    }

    /** A log-in's limits on its {@code @RateLimitKey String username}: failures per account, and a shadow limit. */
    private static ResolvedLimits login() {
        LimitDeclaration account = LimitDeclaration.builder(DeclaredOn.METHOD, "the test").name("login-account")
                .permitLimit(3).windowSeconds(3600).per(RateLimitPer.ARGUMENT).failuresOnly(true).build();
        LimitDeclaration shadow = LimitDeclaration.builder(DeclaredOn.METHOD, "the test").name("login-account-shadow")
                .permitLimit(1).windowSeconds(3600).per(RateLimitPer.ARGUMENT).build();
        return LimitResolver.resolve(null, MethodDeclarations.beanMethod("Login.login(String)", List.of(),
                List.of(account, shadow)).withKeys(List.of(new KeyParameter(0, "java.lang.String", false, false)), true));
    }

    private static RateLimitDecision decide(RateLimitEngine engine, BoundLimits limits, String username) throws Exception {
        return engine.decide(engine.ledger("anonymous"), limits, 1, username).get(5, TimeUnit.SECONDS);
    }

    private static String stackTrace(Throwable thrown) {
        if (thrown == null) {
            return "";
        }
        StringWriter out = new StringWriter();
        thrown.printStackTrace(new PrintWriter(out));
        return out.toString();
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
            dev.ratelimit.core.testing.Await.until("a command with " + part + " monitored", 15,
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
