package dev.ratelimit.jcache.testing;

import com.hazelcast.cache.HazelcastCachingProvider;
import com.hazelcast.cache.impl.HazelcastServerCachingProvider;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.spi.CachingProvider;

/**
 * Real Hazelcast members in this JVM, forming one cluster of their own on the loopback interface: each binds port 0
 * (the port it got is read back), joins by TCP-IP the members started before it, no multicast, no other discovery,
 * a cluster name no one else uses. Close to stop them all.
 */
public final class HazelcastMembers implements AutoCloseable {

    private final String clusterName = "ratelimit-test-" + UUID.randomUUID();
    private final List<HazelcastInstance> members = new ArrayList<>();
    private final Consumer<Config> customize;

    private HazelcastMembers(Consumer<Config> customize) {
        this.customize = customize;
    }

    /** Starts {@code count} members and waits until they see each other. */
    public static HazelcastMembers start(int count) {
        return start(count, config -> { });
    }

    /** {@link #start(int)}, each member's configuration first given to {@code customize} (serializers, ...). */
    public static HazelcastMembers start(int count, Consumer<Config> customize) {
        HazelcastMembers cluster = new HazelcastMembers(customize);
        for (int i = 0; i < count; i++) {
            cluster.add();
        }
        return cluster;
    }

    /** Starts one more member, joining those running. */
    public HazelcastInstance add() {
        List<String> addresses = new ArrayList<>();
        for (HazelcastInstance member : members) {
            addresses.add("127.0.0.1:" + member.getCluster().getLocalMember().getAddress().getPort());
        }
        Config config = config(clusterName, addresses);
        customize.accept(config);
        HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
        members.add(member);
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (member.getCluster().getMembers().size() < members.size()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("member " + members.size() + " did not join within 60 s");
            }
            Thread.onSpinWait();
        }
        return member;
    }

    /** A member's configuration: loopback, port 0, TCP-IP join of {@code members} ("127.0.0.1:port"). */
    public static Config config(String clusterName, List<String> members) {
        Config config = new Config();
        config.setClusterName(clusterName);
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.socket.bind.any", "false");
        config.setProperty("hazelcast.logging.type", "jdk");
        NetworkConfig network = config.getNetworkConfig();
        network.setPort(0).setPortAutoIncrement(false);
        network.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true).setMembers(new ArrayList<>(members));
        return config;
    }

    /** The members, in the order they started. */
    public List<HazelcastInstance> members() {
        return members;
    }

    public HazelcastInstance member(int i) {
        return members.get(i);
    }

    /**
     * The JCache cache manager on {@code member}: the provider's default URI and class loader, so that a cache has the
     * same name in every JVM (Hazelcast puts a URI or class loader that is not the default into the cache's name).
     * The provider keeps one such manager per JVM: the first member asked for it is the one it stays on.
     */
    public static CacheManager cacheManager(HazelcastInstance member) {
        CachingProvider provider = Caching.getCachingProvider(HazelcastCachingProvider.MEMBER_CACHING_PROVIDER);
        return provider.getCacheManager(provider.getDefaultURI(), provider.getDefaultClassLoader(),
                HazelcastCachingProvider.propertiesByInstanceItself(member));
    }

    /**
     * A cache manager of its own on {@code member}, through a provider of its own: for a test in which each member
     * stands for one application instance (the provider of {@link #cacheManager} keeps one manager per JVM). The
     * provider's default URI and class loader, so that its caches are those of {@link #cacheManager} by the same
     * names. Close it before the member stops.
     */
    public static CacheManager ownCacheManager(HazelcastInstance member) {
        CachingProvider provider = new HazelcastServerCachingProvider(member);
        return provider.getCacheManager(provider.getDefaultURI(), provider.getDefaultClassLoader());
    }

    @Override
    public void close() {
        for (HazelcastInstance member : members) {
            member.getLifecycleService().terminate();
        }
        members.clear();
    }
}
