package dev.ratelimit.jcache;

import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.testing.ManualClock;
import dev.ratelimit.core.testing.RateLimitStoreContract;
import dev.ratelimit.jcache.testing.HazelcastMembers;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import javax.cache.Cache;
import javax.cache.CacheManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The store contract that the in-process and the Redis stores pass, run against the JCache store on Hazelcast's
 * JCache: two real members in this JVM, the store on the first, so that about half the counts live on the other
 * member and every call to them crosses the network. Time comes from the contract's manual clock, to the nanosecond
 * (the store runs the core's arithmetic, as the in-process store does).
 *
 * <p>One cluster and one store serve every test of a class: each test's clock is plugged in when it begins (every
 * clock starts at {@link ManualClock#DEFAULT_START}, the store's origin), and each test begins on an empty cache (a
 * count per application is every partition's).
 */
abstract class JCacheContract extends RateLimitStoreContract {

    private static final AtomicReference<ManualClock> CLOCK = new AtomicReference<>(new ManualClock());
    private static HazelcastMembers cluster;
    private static CacheManager manager;
    private static Cache<String, byte[]> cache;
    private static JCacheRateLimitStore shared;

    @BeforeAll
    static void startMembers() {
        cluster = HazelcastMembers.start(2);
        manager = HazelcastMembers.cacheManager(cluster.member(0));
        cache = JCacheRateLimitStore.openCache(manager, "ratelimit-contract", Duration.ofDays(500));
    }

    @AfterAll
    static void stopMembers() {
        if (shared != null) {
            shared.close();
            shared = null;
        }
        manager.close(); // the provider keeps one manager per JVM: the next class's members need their own
        cluster.close();
    }

    /** The mode the store runs in. */
    abstract JCacheRateLimitStore.Mode mode();

    @Override
    protected RateLimitStore newStore(ManualClock clock) {
        CLOCK.set(clock);
        cache.clear(); // a count per application left by an earlier test would be this one's too
        if (shared == null) {
            shared = JCacheRateLimitStore.builder(cache).mode(mode()).nanoClock(() -> CLOCK.get().now()).build();
        }
        return shared;
    }
}
