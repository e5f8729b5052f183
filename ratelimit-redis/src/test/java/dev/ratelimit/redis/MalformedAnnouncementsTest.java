package dev.ratelimit.redis;

import static dev.ratelimit.core.testing.EngineFixtures.beanMethod;
import static dev.ratelimit.core.testing.EngineFixtures.decideNow;
import static dev.ratelimit.core.testing.EngineFixtures.limit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.binding.BoundLimits;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.declaration.LimitDeclaration;
import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.testing.Await;
import dev.ratelimit.core.testing.LogRecords;
import dev.ratelimit.redis.testing.CommandStats;
import dev.ratelimit.redis.testing.RedisServerExtension;
import dev.ratelimit.redis.testing.Resp;
import dev.ratelimit.redis.transport.CountKeys;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Messages on the channel of announcements that no store of the library wrote, PUBLISHed with a raw connection on a
 * real Redis to two instances (two engines, each on a store and Lettuce client of its own): malformed ones (no count's
 * key, a hex partition that is not hex, a name or plan that is no limit name, bytes that are not UTF-8, 360 KB) are
 * counted and ignored, one warning per instance without the message's text, no exception logged by Lettuce or the
 * library; a well-formed announcement after them still ends a remembered refusal; a forged well-formed one does no harm
 * beyond ending a remembered refusal early: Redis still refuses; one of a limit no instance declares changes nothing.
 */
class MalformedAnnouncementsTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final LimitDeclaration DEFAULT = limit("default", 2, 60);
    private static final String MARKER = "garbage-marker-7f3a";

    private final List<RedisRateLimitStore> stores = new ArrayList<>();
    private final String prefix = "malformed-" + UUID.randomUUID() + ":";
    private final LogRecords logged = LogRecords.on("io.lettuce", LogRecords.LIBRARY, "io.netty");

    @AfterEach
    void close() {
        logged.close();
        stores.forEach(RedisRateLimitStore::close);
    }

    @Test
    void malformedMessagesAreCountedAndIgnoredWithOneWarningPerInstanceAndAGoodOneStillWorks() throws Exception {
        Instance a = instance();
        Instance b = instance();
        refuseAndRemember(b, "after-garbage");
        refuseAndRemember(a, "after-garbage-too");
        byte[] channel = (prefix + RedisRateLimitStore.ANNOUNCEMENTS).getBytes(StandardCharsets.UTF_8);
        List<byte[]> garbage = List.of(
                utf8(MARKER),
                utf8(prefix + "{x" + MARKER + "}default"), // not hex: the parser used to throw
                utf8(prefix + "{xzzzz}default"),
                utf8(prefix + CountKeys.tag(MARKER) + "no limit name!"),
                utf8(prefix + CountKeys.tag(MARKER) + "default/"),
                utf8(prefix + "{99:" + MARKER + "}default"),
                new byte[] {(byte) 0xff, (byte) 0xfe, (byte) 0xc3, 0x28, (byte) 0xa0, (byte) 0xa1, 0x00, 0x7b},
                utf8(prefix + "{" + MARKER.repeat(20_000) + "}default"));
        int rounds = 20;
        for (int i = 0; i < rounds; i++) {
            for (byte[] message : garbage) {
                publish(channel, message);
            }
        }

        // a well-formed announcement after the garbage (messages arrive in order) still ends a remembered refusal
        a.engine.admin().reset("default", "after-garbage", null, "ops").toCompletableFuture().get(5, TimeUnit.SECONDS);
        b.engine.admin().reset("default", "after-garbage-too", null, "ops").toCompletableFuture().get(5, TimeUnit.SECONDS);
        awaitUntil("let in on the second instance", () -> decideNow(b.engine, b.engine.ledger("after-garbage"), b.limits)
                .allowed());
        awaitUntil("let in on the first instance", () -> decideNow(a.engine, a.engine.ledger("after-garbage-too"),
                a.limits).allowed());
        long sent = (long) rounds * garbage.size();
        assertThat(logged.records()).as("nothing thrown and logged, by Lettuce or by the library")
                .noneMatch(r -> r.getThrown() != null)
                .noneMatch(r -> r.getLevel().intValue() >= Level.SEVERE.intValue());
        assertThat(logged.records()).filteredOn(r -> r.getMessage().contains("ignored a message"))
                .as("one warning per instance, not one per message").hasSize(2)
                .allSatisfy(r -> assertThat(r.getLevel()).isEqualTo(Level.WARNING));
        assertThat(logged.records()).as("the text of a message is never written")
                .noneMatch(r -> String.valueOf(r.getMessage()).contains(MARKER));
        assertThat(List.of(a.store.malformedAnnouncements(), b.store.malformedAnnouncements()))
                .as("every malformed message counted, on each instance").containsExactly(sent, sent);
        assertThat(decideNow(a.engine, a.engine.ledger("still-counting"), a.limits).allowed()).isTrue();
    }

    @Test
    void aForgedWellFormedAnnouncementOnlyEndsARememberedRefusalRedisStillRefuses() throws Exception {
        Instance b = instance();
        refuseAndRemember(b, "victim");

        // a count of a limit this instance does not declare (another version's): nothing remembered, nothing to do
        byte[] channel = (prefix + RedisRateLimitStore.ANNOUNCEMENTS).getBytes(StandardCharsets.UTF_8);
        publish(channel, utf8(prefix + CountKeys.tag("victim") + "undeclared-limit"));
        // what a give-back would announce, with no give-back: the count never gained a permit
        publish(channel, utf8(prefix + CountKeys.tag("victim") + "default"));

        awaitUntil("the remembered refusal forgotten: Redis is asked again", () -> {
            CommandStats before = stats();
            boolean refused = !decideNow(b.engine, b.engine.ledger("victim"), b.limits).allowed();
            return refused && stats().scriptCallsSince(before) == 1;
        });
        for (int i = 0; i < 5; i++) {
            assertThat(decideNow(b.engine, b.engine.ledger("victim"), b.limits).allowed())
                    .as("Redis still refuses: the forgery gave no permit").isFalse();
        }
        assertThat(b.store.malformedAnnouncements()).as("well-formed: not counted as malformed").isZero();
        assertThat(logged.records()).noneMatch(r -> r.getThrown() != null);
    }

    // ------------------------------------------------------------------------------------------------

    private record Instance(RedisRateLimitStore store, RateLimitEngine engine, BoundLimits limits) {
    }

    /** An instance with the limit "default" bound, listening (its subscription in place) before it is returned. */
    private Instance instance() throws Exception {
        RedisRateLimitStore store = RedisRateLimitStore.builder(REDIS.uri()).keyPrefix(prefix)
                .timeout(Duration.ofSeconds(5)).build();
        stores.add(store);
        assertThat(store.awaitConnection(Duration.ofSeconds(10))).isTrue();
        RateLimitEngine engine = RateLimitEngine.builder(RateLimitSettings.of(Map.of(
                "ratelimit.store.timeout-millis", "5000", "ratelimit.store.refusal-memory-millis", "60000")), store).build();
        Instance instance = new Instance(store, engine, engine.binder().bind(beanMethod("TodoResource.all()", DEFAULT)));
        refuseAndRemember(instance, "probe-" + UUID.randomUUID()); // remembered: the subscription is in place
        return instance;
    }

    /** Spends the limit of {@code partition} on {@code instance}, then waits until its refusal is answered there. */
    private static void refuseAndRemember(Instance instance, String partition) throws Exception {
        while (decideNow(instance.engine, instance.engine.ledger(partition), instance.limits).allowed()) {
            // spending
        }
        awaitUntil("the refusal answered at home", () -> {
            CommandStats before = stats();
            boolean refused = !decideNow(instance.engine, instance.engine.ledger(partition), instance.limits).allowed();
            return refused && stats().scriptCallsSince(before) == 0;
        });
    }

    /** PUBLISH with a raw connection: the message's bytes as they are, UTF-8 or not. */
    private static void publish(byte[] channel, byte[] message) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), REDIS.port())) {
            socket.setSoTimeout(10_000);
            ByteArrayOutputStream command = new ByteArrayOutputStream();
            command.write(utf8("*3\r\n$7\r\nPUBLISH\r\n"));
            for (byte[] arg : List.of(channel, message)) {
                command.write(utf8("$" + arg.length + "\r\n"));
                command.write(arg);
                command.write(utf8("\r\n"));
            }
            OutputStream out = socket.getOutputStream();
            out.write(command.toByteArray());
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder reply = new StringBuilder();
            for (int c = in.read(); c != '\n' && c >= 0; c = in.read()) {
                reply.append((char) c);
            }
            assertThat(reply.toString()).as("PUBLISH answered with the number of subscribers").startsWith(":");
        }
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static CommandStats stats() {
        try (Resp resp = REDIS.client()) {
            return CommandStats.of(resp);
        }
    }

    private static void awaitUntil(String what, Callable<Boolean> condition) throws Exception {
        Await.until(what, 15, condition);
    }
}
