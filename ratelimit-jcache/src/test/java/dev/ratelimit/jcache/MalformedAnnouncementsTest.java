package dev.ratelimit.jcache;

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
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import javax.cache.Cache;
import javax.cache.CacheManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Entries in the cache of announcements that no store of the library wrote, put there directly on a real Hazelcast
 * grid of two members, each with an application instance (an engine on a store and cache manager of its own):
 * malformed ones (no count's key, a name or a plan that is no limit name, 360 KB) are counted and
 * ignored, one warning per instance without the key's text, nothing thrown; a well-formed announcement after them
 * still ends a remembered refusal; a forged well-formed one does no harm beyond ending a remembered refusal early: the
 * grid still refuses.
 */
class MalformedAnnouncementsTest {

    private static final LimitDeclaration DEFAULT = limit("default", 2, 60);
    private static final String MARKER = "garbage-marker-7f3a";

    @RegisterExtension
    static final TwoMembers GRID = new TwoMembers();

    private final String cache = "malformed-" + UUID.randomUUID();
    private final LogRecords logged = LogRecords.on(LogRecords.LIBRARY, "com.hazelcast");

    @AfterEach
    void close() {
        logged.close();
    }

    @Test
    void malformedEntriesAreCountedAndIgnoredWithOneWarningPerInstanceAndAGoodOneStillWorks() throws Exception {
        Instance a = instance(0);
        Instance b = instance(1);
        refuseAndRemember(b, "after-garbage");
        refuseAndRemember(a, "after-garbage-too");
        Cache<String, byte[]> announcements = a.announcements();
        List<String> garbage = List.of(
                MARKER,
                "no limit name!|" + MARKER,
                "default/|" + MARKER,
                "~" + MARKER + "|x",
                "default|" + MARKER.repeat(20_000));
        int rounds = 20;
        for (int i = 0; i < rounds; i++) {
            for (String key : garbage) {
                announcements.put(key, new byte[] {(byte) i});
            }
        }

        // a well-formed announcement after the garbage still ends a remembered refusal
        a.engine.admin().reset("default", "after-garbage", null, "ops").toCompletableFuture().get(30, TimeUnit.SECONDS);
        b.engine.admin().reset("default", "after-garbage-too", null, "ops").toCompletableFuture().get(30, TimeUnit.SECONDS);
        awaitUntil("let in on the second instance", () -> decideNow(b.engine, b.engine.ledger("after-garbage"), b.limits)
                .allowed());
        awaitUntil("let in on the first instance", () -> decideNow(a.engine, a.engine.ledger("after-garbage-too"),
                a.limits).allowed());
        long sent = (long) rounds * garbage.size();
        // a listener hears a member's writes in order per key, not across keys: wait for the last ones
        awaitUntil("every malformed entry counted on each instance", () -> a.store.malformedAnnouncements() == sent
                && b.store.malformedAnnouncements() == sent);
        assertThat(logged.records()).as("nothing thrown and logged").noneMatch(r -> r.getThrown() != null)
                .noneMatch(r -> r.getLevel().intValue() >= Level.SEVERE.intValue());
        assertThat(logged.records()).filteredOn(r -> String.valueOf(r.getMessage()).contains("ignored an entry"))
                .as("one warning per instance, not one per entry").hasSize(2)
                .allSatisfy(r -> assertThat(r.getLevel()).isEqualTo(Level.WARNING));
        assertThat(logged.records()).as("the key of an entry is never written")
                .noneMatch(r -> String.valueOf(r.getMessage()).contains(MARKER));
        assertThat(decideNow(a.engine, a.engine.ledger("still-counting"), a.limits).allowed()).isTrue();
    }

    @Test
    void aForgedWellFormedAnnouncementOnlyEndsARememberedRefusalTheGridStillRefuses() throws Exception {
        Instance b = instance(1);
        refuseAndRemember(b, "victim");

        // a count of a limit this instance does not declare (another version's): nothing remembered, nothing to do
        b.announcements().put("undeclared-limit|victim", new byte[] {1});
        // what a give-back would announce, with no give-back: the count never gained a permit
        b.announcements().put("default|victim", new byte[] {1});

        awaitUntil("the remembered refusal forgotten: the grid is asked again", () -> {
            long before = b.counts.calls();
            boolean refused = !decideNow(b.engine, b.engine.ledger("victim"), b.limits).allowed();
            return refused && b.counts.calls() > before;
        });
        for (int i = 0; i < 5; i++) {
            assertThat(decideNow(b.engine, b.engine.ledger("victim"), b.limits).allowed())
                    .as("the grid still refuses: the forgery gave no permit").isFalse();
        }
        assertThat(b.store.malformedAnnouncements()).as("well-formed: not counted as malformed").isZero();
        assertThat(logged.records()).noneMatch(r -> r.getThrown() != null);
    }

    // ------------------------------------------------------------------------------------------------

    private record Instance(JCacheRateLimitStore store, CountingCache counts, RateLimitEngine engine, BoundLimits limits,
                            CacheManager manager, String cache) {

        Cache<String, byte[]> announcements() {
            return manager.getCache(cache + ".announcements", String.class, byte[].class);
        }
    }

    /** An instance on member {@code i} with the limit "default" bound, listening before it is returned. */
    private Instance instance(int i) throws Exception {
        CacheManager manager = GRID.newManager(i);
        CountingCache counts = new CountingCache(TwoMembers.counts(manager, cache));
        JCacheRateLimitStore store = GRID.closing(JCacheRateLimitStore.builder(counts.cache()).build());
        RateLimitEngine engine = RateLimitEngine.builder(RateLimitSettings.of(Map.of(
                "ratelimit.store.timeout-millis", "30000", "ratelimit.store.refusal-memory-millis", "60000")), store).build();
        Instance instance = new Instance(store, counts, engine, engine.binder().bind(beanMethod("TodoResource.all()",
                DEFAULT)), manager, cache);
        refuseAndRemember(instance, "probe-" + UUID.randomUUID()); // remembered: the listener is in place
        return instance;
    }

    /** Spends the limit of {@code partition} on {@code instance}, then waits until its refusal is answered there. */
    private static void refuseAndRemember(Instance instance, String partition) throws Exception {
        while (decideNow(instance.engine, instance.engine.ledger(partition), instance.limits).allowed()) {
            // spending
        }
        awaitUntil("the refusal answered at home", () -> {
            long before = instance.counts.calls();
            boolean refused = !decideNow(instance.engine, instance.engine.ledger(partition), instance.limits).allowed();
            return refused && instance.counts.calls() == before;
        });
    }

    private static void awaitUntil(String what, Callable<Boolean> condition) throws Exception {
        Await.until(what, 30, condition);
    }
}
