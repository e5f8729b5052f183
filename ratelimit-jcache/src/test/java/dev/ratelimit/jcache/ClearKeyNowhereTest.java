package dev.ratelimit.jcache;

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
import dev.ratelimit.core.testing.Await;
import dev.ratelimit.jcache.testing.HazelcastMembers;
import dev.ratelimit.micrometer.MicrometerRateLimitMetrics;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import javax.cache.Cache;
import javax.cache.CacheManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A username counted per argument through two instances on one real Hazelcast grid (two members) is never written in
 * clear (docs/login-protection.md, "Counting by an argument"): neither in any entry of the cache of counts or of the
 * cache of announcements (every key and value, scanned), nor in any log record of the library or of Hazelcast, nor in
 * any metric's name, tag or value (Micrometer), nor in what the admin API answers; in any case, and not even its first
 * word.
 */
class ClearKeyNowhereTest {

    private static final String USERNAME = "Zebulon-Secret-User";
    /** What must appear nowhere, lower-cased: the value, and a part of it. */
    private static final List<String> CLEAR = List.of("zebulon-secret-user", "zebulon");
    /** Held: JUL keeps loggers weakly, and with them their handlers. */
    private static final List<Logger> LOGGERS = List.of(Logger.getLogger("dev.ratelimit"), Logger.getLogger("com.hazelcast"));
    private static HazelcastMembers cluster;

    /** One cache manager per member (Hazelcast lets a cache belong to one). */
    private final Map<Integer, CacheManager> managers = new HashMap<>();
    private final List<JCacheRateLimitStore> stores = new ArrayList<>();
    private final String cache = "clear-" + UUID.randomUUID();
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

    @BeforeAll
    static void start() {
        cluster = HazelcastMembers.start(2);
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @BeforeEach
    void listen() {
        LOGGERS.forEach(logger -> logger.addHandler(capture));
        Logger.getLogger("dev.ratelimit").setLevel(Level.ALL); // DEBUG and TRACE lines too
    }

    @AfterEach
    void close() {
        LOGGERS.forEach(logger -> logger.removeHandler(capture));
        Logger.getLogger("dev.ratelimit").setLevel(null);
        stores.forEach(JCacheRateLimitStore::close);
        managers.values().forEach(CacheManager::close);
    }

    @Test
    void aUsernameCountedByTwoInstancesIsInNoCacheEntryNoLogNoMetricAndNoAdminAnswer() throws Exception {
        SimpleMeterRegistry metricsA = new SimpleMeterRegistry();
        SimpleMeterRegistry metricsB = new SimpleMeterRegistry();
        List<String> seen = new ArrayList<>();
        RateLimitEngine a = engine(0, metricsA);
        RateLimitEngine b = engine(1, metricsB);
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
        // the admin API: the count by key, the most refused, a reset (announced); then a success gives its permit back
        String partition = a.admin().keyPartition("login-account", USERNAME);
        seen.add(partition);
        seen.add(String.valueOf(a.admin().count("login-account", partition, null).toCompletableFuture()
                .get(30, TimeUnit.SECONDS)));
        seen.add(String.valueOf(b.admin().refused("login-account", 10)));
        a.admin().reset("login-account", partition, null, "ops").toCompletableFuture().get(30, TimeUnit.SECONDS);
        RequestLedger ledger = b.ledger("anonymous");
        RateLimitDecision success = b.decide(ledger, onB, 1, USERNAME).get(30, TimeUnit.SECONDS);
        assertThat(success.allowed()).isTrue();
        b.succeeded(ledger, success);
        Cache<String, byte[]> counts = counts(0);
        Await.until("the give-back written", 30, () -> !counts.containsKey("login-account|" + partition));

        Cache<String, byte[]> announcements = managers.get(0).getCache(cache + ".announcements", String.class, byte[].class);
        assertThat(announcements.containsKey("login-account|" + partition)).as("the reset announced").isTrue();
        for (Cache<String, byte[]> scanned : List.of(counts, announcements)) {
            for (Cache.Entry<String, byte[]> entry : scanned) {
                seen.add(entry.getKey());
                seen.add(new String(entry.getValue(), StandardCharsets.ISO_8859_1));
            }
        }
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

    private RateLimitEngine engine(int member, SimpleMeterRegistry registry) {
        JCacheRateLimitStore store = JCacheRateLimitStore.builder(counts(member)).build();
        stores.add(store);
        return RateLimitEngine.builder(RateLimitSettings.of(Map.of(RateLimitSettings.KEY_SECRET,
                        "a-secret-of-the-test-0123456789", "ratelimit.store.timeout-millis", "30000",
                        "ratelimit.limits.login-account-shadow.mode", "shadow")), store)
                .metrics(new MicrometerRateLimitMetrics(registry)).build();
    }

    private Cache<String, byte[]> counts(int member) {
        CacheManager manager = managers.computeIfAbsent(member, m -> HazelcastMembers.ownCacheManager(cluster.member(m)));
        return JCacheRateLimitStore.openCache(manager, cache, Duration.ofHours(2));
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
        return engine.decide(engine.ledger("anonymous"), limits, 1, username).get(30, TimeUnit.SECONDS);
    }

    private static String stackTrace(Throwable thrown) {
        if (thrown == null) {
            return "";
        }
        StringWriter out = new StringWriter();
        thrown.printStackTrace(new PrintWriter(out));
        return out.toString();
    }
}
