package dev.ratelimit.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.jcache.testing.HazelcastMembers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.cache.Cache;
import javax.cache.CacheManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A count that refused remembers it in its bytes, so that the permits it gains later (a give-back, a restart) can be
 * announced to the instances that remember the refusal: once per refusal, and not for counts that never refused.
 */
class AnnouncementsTest {

    private static HazelcastMembers cluster;
    private static CacheManager manager;
    private static Cache<String, byte[]> cache;

    @BeforeAll
    static void start() {
        cluster = HazelcastMembers.start(1);
        manager = HazelcastMembers.cacheManager(cluster.member(0));
        cache = JCacheRateLimitStore.openCache(manager, "announcements", Duration.ofHours(2));
    }

    @AfterAll
    static void stop() {
        manager.close();
        cluster.close();
    }

    @ParameterizedTest
    @EnumSource(JCacheRateLimitStore.Mode.class)
    void aGiveBackOrARestartToACountThatRefusedIsAnnouncedOnce(JCacheRateLimitStore.Mode mode) throws Exception {
        List<String> announced = new CopyOnWriteArrayList<>();
        try (JCacheRateLimitStore store = JCacheRateLimitStore.builder(cache).mode(mode).announcements(announced::add)
                .build()) {
            RateLimitPolicy one = new RateLimitPolicy("announced-" + mode, 1, 60, RateLimitAlgorithm.SLIDING_WINDOW);
            CountKey key = new CountKey(one.name(), null, one.algorithm());
            RateLimitRequest request = RateLimitRequest.of(store.bind(key), key, one, 1, Kind.ACQUIRE);

            RateLimitDecision first = store.acquire("p", request, 1).toCompletableFuture().get();
            assertThat(first.allowed()).isTrue();
            store.release(first).toCompletableFuture().get();
            assertThat(announced).as("given back to a count that never refused").isEmpty();

            RateLimitDecision again = store.acquire("p", request, 1).toCompletableFuture().get();
            assertThat(store.acquire("p", request, 1).toCompletableFuture().get().allowed()).isFalse();
            assertThat(store.acquire("p", request, 1).toCompletableFuture().get().allowed()).isFalse();
            store.release(again).toCompletableFuture().get();
            assertThat(announced).containsExactly(one.name() + "|p");

            assertThat(store.acquire("p", request, 1).toCompletableFuture().get().allowed()).isTrue();
            assertThat(store.acquire("p", request, 1).toCompletableFuture().get().allowed()).isFalse();
            store.restart("p", request).toCompletableFuture().get();
            assertThat(announced).containsExactly(one.name() + "|p", one.name() + "|p");
            assertThat(store.acquire("p", request, 1).toCompletableFuture().get().allowed()).isTrue();
        }
    }
}
