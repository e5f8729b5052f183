package dev.ratelimit.jcache;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.testing.CountingJvm;
import dev.ratelimit.jcache.testing.HazelcastMembers;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import javax.cache.Cache;

/**
 * One application instance, for {@link TwoJvmsTest}: its own JVM, a Hazelcast member of its own and a store on it.
 * Prints {@code ready <port>} once its member is up (and has joined the members given), waits for a line on stdin
 * (so that the instances start together), sends its requests all at once, {@code requests} on a limit of each
 * algorithm, prints {@code admitted=<n>,<n>,<n>} (in the order of {@link RateLimitAlgorithm#values()}:
 * {@link CountingJvm}) and the store's mode, and ends on the next line (or the end) of stdin.
 *
 * <p>Arguments: cluster name, members to join ({@code 127.0.0.1:port,...} or {@code -}), members to wait for, mode,
 * partition, permit limit, requests per algorithm.
 */
public final class CountingMember {

    private CountingMember() {
    }

    public static void main(String[] args) throws Exception {
        List<String> join = args[1].equals("-") ? List.of() : Arrays.asList(args[1].split(","));
        int members = Integer.parseInt(args[2]);
        JCacheRateLimitStore.Mode mode = JCacheRateLimitStore.Mode.valueOf(args[3]);
        HazelcastInstance member = Hazelcast.newHazelcastInstance(HazelcastMembers.config(args[0], join));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            System.out.println("ready " + member.getCluster().getLocalMember().getAddress().getPort());
            System.out.flush();
            in.readLine();
            while (member.getCluster().getMembers().size() < members) {
                Thread.onSpinWait();
            }
            Cache<String, byte[]> cache = JCacheRateLimitStore.openCache(HazelcastMembers.cacheManager(member),
                    "two-jvms", Duration.ofHours(2));
            try (JCacheRateLimitStore store = JCacheRateLimitStore.builder(cache).mode(mode).build()) {
                String admitted = CountingJvm.admitted(store, args[4], Integer.parseInt(args[5]),
                        Integer.parseInt(args[6]), 60);
                System.out.println(admitted + " mode=" + store.mode());
                System.out.flush();
                in.readLine(); // the other instance may still be counting: its keys may live on this member
            }
        } finally {
            member.getLifecycleService().terminate();
        }
    }
}
