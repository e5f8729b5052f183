package dev.ratelimit.benchmarks.jcache;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.ratelimit.benchmarks.peers.Peers;
import dev.ratelimit.benchmarks.support.Ours;
import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.jcache.JCacheRateLimitStore;
import dev.ratelimit.jcache.testing.HazelcastMembers;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.grid.hazelcast.Bucket4jHazelcast;
import io.github.bucket4j.grid.hazelcast.HazelcastProxyManager;
import io.github.bucket4j.grid.jcache.Bucket4jJCache;
import java.time.Duration;
import java.util.function.IntFunction;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One hot key on a Hazelcast grid, {@value #THREADS} caller threads, allowed path, each caller waiting for its
 * answer before the next: our {@link JCacheRateLimitStore} (an entry processor on the JCache API) against Bucket4j's
 * JCache proxy manager (an entry processor on the same JCache API) and Bucket4j's Hazelcast proxy manager (an entry
 * processor on an {@code IMap}, with Bucket4j's own Hazelcast serializers registered: its best set-up). Real members
 * in this JVM on loopback: {@code members=1}, everything on the one member; {@code members=2}, the callers on the
 * first and every hot key owned by the second, so that each call is one hop over the network (serialized both ways).
 *
 * <p>Ours twice: {@code ratelimit_jcacheStore} decides on the caller's thread (as Bucket4j's calls do), and
 * {@code ratelimit_jcacheStoreOwnThreads} as the engine calls it in an application, through the store's own
 * threads (a hand-off per call, so that a request never blocks on the grid).
 */
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch", "-Dhazelcast.phone.home.enabled=false",
        "-Dhazelcast.logging.type=none", "--add-opens", "java.base/java.lang=ALL-UNNAMED"})
@Threads(JCacheHotKey.THREADS)
public abstract class JCacheHotKey {

    static final int THREADS = 4;
    static final RateLimitPolicy POLICY = Ours.policy("hot");
    private static final int BUCKET4J_TYPE_IDS = 10_000;

    /** The grid: {@code members} Hazelcast members, the callers on the first. */
    @State(Scope.Benchmark)
    public static class Grid {
        @Param({"1", "2"})
        public int members;

        HazelcastMembers cluster;
        CacheManager manager;

        @Setup(Level.Trial)
        public void start() {
            cluster = HazelcastMembers.start(members,
                    config -> HazelcastProxyManager.addCustomSerializers(config.getSerializationConfig(), BUCKET4J_TYPE_IDS));
            manager = HazelcastMembers.cacheManager(caller());
        }

        HazelcastInstance caller() {
            return cluster.member(0);
        }

        /** A key made by {@code key} from 0, 1, ... that lives on the last member (with one member: the first key). */
        String remoteKey(IntFunction<String> key) {
            HazelcastInstance owner = cluster.member(members - 1);
            for (int i = 0; ; i++) {
                String candidate = key.apply(i);
                if (caller().getPartitionService().getPartition(candidate).getOwner().getUuid()
                        .equals(owner.getCluster().getLocalMember().getUuid())) {
                    return candidate;
                }
            }
        }

        @TearDown(Level.Trial)
        public void stop() {
            manager.close();
            cluster.close();
        }
    }

    /** Ours, deciding on the caller's thread. */
    @State(Scope.Benchmark)
    public static class OursHere {
        JCacheRateLimitStore store;
        RateLimitRequest request;
        String partition;

        @Setup(Level.Trial)
        public void start(Grid grid) {
            start(grid, JCacheRateLimitStore.builder(cache(grid)).mode(JCacheRateLimitStore.Mode.PROCESSOR)
                    .executor(Runnable::run).build());
        }

        void start(Grid grid, JCacheRateLimitStore store) {
            this.store = store;
            CountKey hot = new CountKey(POLICY.name(), null, POLICY.algorithm());
            request = RateLimitRequest.of(store.bind(hot), hot, POLICY, 1, Kind.ACQUIRE);
            // the cache key is "hot|<partition>": a partition whose key lives on the last member
            String key = grid.remoteKey(i -> "hot|sub:alice-" + i);
            partition = key.substring("hot|".length());
        }

        static Cache<String, byte[]> cache(Grid grid) {
            return JCacheRateLimitStore.openCache(grid.manager, "ratelimit-bench", Duration.ofHours(2));
        }

        RateLimitDecision acquire() {
            RateLimitDecision decision = store.acquire(partition, request, 1).toCompletableFuture().join();
            if (!decision.allowed()) {
                throw new IllegalStateException("refused: " + decision);
            }
            return decision;
        }

        @TearDown(Level.Trial)
        public void stop() {
            store.close();
        }
    }

    /** Ours through its own threads, as in an application. */
    @State(Scope.Benchmark)
    public static class OursOwnThreads extends OursHere {
        @Override
        @Setup(Level.Trial)
        public void start(Grid grid) {
            start(grid, JCacheRateLimitStore.builder(cache(grid)).mode(JCacheRateLimitStore.Mode.PROCESSOR).build());
        }
    }

    /** Bucket4j's JCache proxy manager on the same grid's JCache. */
    @State(Scope.Benchmark)
    public static class Bucket4jJCacheState {
        BucketProxy bucket;

        @Setup(Level.Trial)
        public void start(Grid grid) {
            Cache<String, byte[]> cache = grid.manager.createCache("bucket4j-bench",
                    new MutableConfiguration<String, byte[]>().setTypes(String.class, byte[].class));
            String key = grid.remoteKey(i -> "bucket4j-jcache-" + i);
            bucket = Bucket4jJCache.entryProcessorBasedBuilder(cache).build().builder().build(key, Bucket4jJCacheState::configuration);
        }

        static BucketConfiguration configuration() {
            return BucketConfiguration.builder()
                    .addLimit(limit -> limit.capacity(Peers.PERMITS).refillGreedy(Peers.PERMITS, Peers.WINDOW))
                    .build();
        }

        boolean acquire() {
            return consume(bucket);
        }

        @TearDown(Level.Trial)
        public void stop(Grid grid) {
            grid.manager.destroyCache("bucket4j-bench");
        }
    }

    /** Bucket4j's Hazelcast proxy manager: an entry processor on an IMap, Bucket4j's serializers registered. */
    @State(Scope.Benchmark)
    public static class Bucket4jHazelcastState {
        BucketProxy bucket;

        @Setup(Level.Trial)
        public void start(Grid grid) {
            IMap<String, byte[]> map = grid.caller().getMap("bucket4j-bench");
            String key = grid.remoteKey(i -> "bucket4j-hazelcast-" + i);
            bucket = Bucket4jHazelcast.entryProcessorBasedBuilder(map).build().builder()
                    .build(key, Bucket4jJCacheState::configuration);
        }

        boolean acquire() {
            return consume(bucket);
        }
    }

    /** One permit of a Bucket4j bucket, which must have it. */
    static boolean consume(BucketProxy bucket) {
        if (!bucket.tryConsume(1)) {
            throw new IllegalStateException("refused");
        }
        return true;
    }

    @Benchmark
    public RateLimitDecision ratelimit_jcacheStore(OursHere ours) {
        return ours.acquire();
    }

    @Benchmark
    public RateLimitDecision ratelimit_jcacheStoreOwnThreads(OursOwnThreads ours) {
        return ours.acquire();
    }

    @Benchmark
    public boolean bucket4j_jcache(Bucket4jJCacheState bucket4j) {
        return bucket4j.acquire();
    }

    @Benchmark
    public boolean bucket4j_hazelcast(Bucket4jHazelcastState bucket4j) {
        return bucket4j.acquire();
    }
}
