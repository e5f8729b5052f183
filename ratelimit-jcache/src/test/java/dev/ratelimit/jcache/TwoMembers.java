package dev.ratelimit.jcache;

import com.hazelcast.core.HazelcastInstance;
import dev.ratelimit.jcache.testing.HazelcastMembers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.cache.Cache;
import javax.cache.CacheManager;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A grid of two real Hazelcast members for one test class ({@link HazelcastMembers}), and what a test makes on it to
 * stand for application instances: cache managers of their own and stores. Those are closed after each test (the
 * stores first), the members after the class.
 *
 * <p>Use as {@code @RegisterExtension static final TwoMembers GRID = new TwoMembers();}
 */
final class TwoMembers implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

    private HazelcastMembers cluster;
    /** The test's one cache manager per member (Hazelcast lets a cache belong to one), by member. */
    private final Map<Integer, CacheManager> managers = new HashMap<>();
    /** The cache managers of one application instance each. */
    private final List<CacheManager> instanceManagers = new ArrayList<>();
    private final List<JCacheRateLimitStore> stores = new ArrayList<>();

    @Override
    public void beforeAll(ExtensionContext context) {
        cluster = HazelcastMembers.start(2);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        stores.forEach(JCacheRateLimitStore::close);
        stores.clear();
        managers.values().forEach(CacheManager::close);
        managers.clear();
        instanceManagers.forEach(CacheManager::close);
        instanceManagers.clear();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        cluster.close();
    }

    /** The members, to add one or stop one. */
    HazelcastMembers cluster() {
        return cluster;
    }

    HazelcastInstance member(int i) {
        return cluster.member(i);
    }

    /** The test's cache manager on member {@code i}: the same one each time within a test. */
    CacheManager manager(int i) {
        return managers.computeIfAbsent(i, m -> HazelcastMembers.ownCacheManager(cluster.member(m)));
    }

    /** A new cache manager of its own on member {@code i}: one more application instance. */
    CacheManager newManager(int i) {
        CacheManager manager = HazelcastMembers.ownCacheManager(cluster.member(i));
        instanceManagers.add(manager);
        return manager;
    }

    /** The cache of counts {@code name} on member {@code i}, through the test's cache manager of that member. */
    Cache<String, byte[]> counts(int i, String name) {
        return counts(manager(i), name);
    }

    /** The cache of counts {@code name} through {@code manager}, its entries kept two hours. */
    static Cache<String, byte[]> counts(CacheManager manager, String name) {
        return JCacheRateLimitStore.openCache(manager, name, Duration.ofHours(2));
    }

    /** {@code store}, closed after the test. */
    JCacheRateLimitStore closing(JCacheRateLimitStore store) {
        stores.add(store);
        return store;
    }
}
