package dev.ratelimit.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.engine.RateLimitEngine;
import dev.ratelimit.core.testing.Await;
import dev.ratelimit.core.testing.ClearKeyNowhere;
import dev.ratelimit.core.testing.LogRecords;
import dev.ratelimit.micrometer.MicrometerRateLimitMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.logging.Level;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import javax.cache.Cache;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A username counted per argument through two instances on one real Hazelcast grid (two members) is never written in
 * clear (docs/login-protection.md, "Counting by an argument"): neither in any entry of the cache of counts or of the
 * cache of announcements (every key and value, scanned), nor in any log record of the library or of Hazelcast, nor in
 * any metric's name, tag or value (Micrometer), nor in what the admin API answers; in any case, and not even its first
 * word.
 */
class ClearKeyNowhereTest {

    @RegisterExtension
    static final TwoMembers GRID = new TwoMembers();

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final String cache = "clear-" + UUID.randomUUID();
    private final List<SimpleMeterRegistry> registries = List.of(new SimpleMeterRegistry(), new SimpleMeterRegistry());
    /** The library's DEBUG and TRACE lines too. */
    private final LogRecords logged = LogRecords.on(LogRecords.LIBRARY, "com.hazelcast")
            .level(Level.ALL, LogRecords.LIBRARY);

    @AfterEach
    void close() {
        logged.close();
    }

    @Test
    void aUsernameCountedByTwoInstancesIsInNoCacheEntryNoLogNoMetricAndNoAdminAnswer() throws Exception {
        ClearKeyNowhere.run(TIMEOUT, this::engine, this::cacheEntries, this::meters, logged);
    }

    /** Every key and value of the cache of counts and of the cache of announcements, once the give-back is written. */
    private List<String> cacheEntries(String partition) throws Exception {
        List<String> seen = new ArrayList<>();
        Cache<String, byte[]> counts = GRID.counts(0, cache);
        Await.until("the give-back written", 30, () -> !counts.containsKey("login-account|" + partition));

        Cache<String, byte[]> announcements = GRID.manager(0).getCache(cache + ".announcements", String.class,
                byte[].class);
        assertThat(announcements.containsKey("login-account|" + partition)).as("the reset announced").isTrue();
        for (Cache<String, byte[]> scanned : List.of(counts, announcements)) {
            for (Cache.Entry<String, byte[]> entry : scanned) {
                seen.add(entry.getKey());
                seen.add(new String(entry.getValue(), StandardCharsets.ISO_8859_1));
            }
        }
        return seen;
    }

    /** Instance {@code i}: an engine on a store on member {@code i}, its metrics in a registry of its own. */
    private RateLimitEngine engine(int i) {
        JCacheRateLimitStore store = GRID.closing(JCacheRateLimitStore.builder(GRID.counts(i, cache)).build());
        return RateLimitEngine.builder(ClearKeyNowhere.settings(TIMEOUT), store)
                .metrics(new MicrometerRateLimitMetrics(registries.get(i))).build();
    }

    /** The name, tags and measurements of every meter of instance {@code i}. */
    private List<String> meters(int i) {
        return registries.get(i).getMeters().stream().flatMap(meter -> Stream.concat(Stream.of(meter.getId()),
                StreamSupport.stream(meter.measure().spliterator(), false)).map(String::valueOf)).toList();
    }
}
