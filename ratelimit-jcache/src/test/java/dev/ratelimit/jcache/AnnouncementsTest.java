package dev.ratelimit.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.MemberLeftException;
import com.hazelcast.core.OperationTimeoutException;
import com.hazelcast.partition.PartitionService;
import com.hazelcast.spi.exception.TargetDisconnectedException;
import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.RateLimitStore.CountListener;
import dev.ratelimit.core.testing.Await;
import dev.ratelimit.core.testing.LogRecords;
import dev.ratelimit.jcache.internal.CacheKeys;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.processor.EntryProcessorException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What the store announces, on two real Hazelcast members, each with a store of its own as two application instances
 * would have: a give-back or a restart of a count that refused since its last announcement, made on either instance, is
 * heard on both, naming the count's limit, plan and partition, once (counted after a later announcement, a marker, has
 * been heard: one made before it would have come first); a count that never refused announces nothing, and one
 * that refused is announced once; a listener hears that anything may have gained when it starts and when a member
 * joins or leaves. Whether something was announced is read in the cache of announcements itself, which the store
 * writes before its call completes; whether it was heard, by waiting for it.
 */
class AnnouncementsTest {

    private static final String CACHE = "announced";

    @RegisterExtension
    static final TwoMembers GRID = new TwoMembers();

    @ParameterizedTest
    @EnumSource(value = JCacheRateLimitStore.Mode.class, names = {"PROCESSOR", "COMPARE_AND_SET"})
    void aGiveBackToACountThatRefusedIsHeardOnEveryInstanceWithItsNamePlanAndPartition(JCacheRateLimitStore.Mode mode)
            throws Exception {
        JCacheRateLimitStore a = store(0, mode);
        JCacheRateLimitStore b = store(1, mode);
        Recording onA = listen(a);
        Recording onB = listen(b);
        RateLimitRequest request = request(a, "given-" + mode, "gold", RateLimitPer.CALLER);
        String partition = "X-Api-Key:a|b/c ключ";

        RateLimitDecision spent = get(a.acquire(partition, request, 1));
        assertThat(get(b.acquire(partition, request, 1)).allowed()).as("refused on the other instance").isFalse();
        get(a.release(spent));

        String heard = "given-" + mode + "/gold@" + partition;
        awaitUntil("heard on both instances", () -> onA.gained.contains(heard) && onB.gained.contains(heard));
        String marker = announceMarker(a, request, partition, onA, onB);

        assertThat(onA.gained).as("once, then the marker").containsExactly(heard, marker);
        assertThat(onB.gained).as("once, then the marker").containsExactly(heard, marker);
    }

    @Test
    void aRestartOfACountPerApplicationThatRefusedIsHeardOnEveryInstance() throws Exception {
        JCacheRateLimitStore a = store(0, JCacheRateLimitStore.Mode.AUTO);
        JCacheRateLimitStore b = store(1, JCacheRateLimitStore.Mode.AUTO);
        Recording onA = listen(a);
        Recording onB = listen(b);
        RateLimitRequest request = request(a, "restarted", null, RateLimitPer.APPLICATION);
        get(a.acquire("anyone", request, 1));
        assertThat(get(a.acquire("someone else", request, 1)).allowed()).isFalse();

        get(b.restart("whoever", request));

        awaitUntil("heard on both instances", () -> onA.gained.contains("restarted@application")
                && onB.gained.contains("restarted@application"));
    }

    @Test
    void aCountThatNeverRefusedAnnouncesNoGiveBackAndOneThatRefusedIsAnnouncedOncePerRefusal() throws Exception {
        JCacheRateLimitStore a = store(0, JCacheRateLimitStore.Mode.AUTO);
        listen(a);
        Cache<String, byte[]> announced = GRID.manager(0).getCache(CACHE + ".announcements", String.class,
                byte[].class);
        RateLimitRequest request = request(a, "once", null, RateLimitPer.CALLER);

        RateLimitDecision calm = get(a.acquire("calm", request, 1));
        get(a.release(calm));
        assertThat(announced.containsKey("once|calm")).as("a give-back of a count that never refused").isFalse();
        get(a.restart("calm", request));
        assertThat(announced.getAndRemove("once|calm")).as("every restart, refused or not: slices of it end")
                .isNotNull();

        RateLimitDecision first = get(a.acquire("p", request, 1));
        assertThat(get(a.acquire("p", request, 1)).allowed()).isFalse();
        get(a.release(first));
        assertThat(announced.getAndRemove("once|p")).as("announced after its refusal").isNotNull();

        RateLimitDecision second = get(a.acquire("p", request, 1));
        get(a.release(second));
        assertThat(announced.containsKey("once|p")).as("no refusal since its announcement").isFalse();
    }

    @Test
    void aListenerHearsThatAnythingMayHaveGainedWhenItStartsAndWhenAMemberJoinsOrLeaves() throws Exception {
        JCacheRateLimitStore b = store(1, JCacheRateLimitStore.Mode.AUTO);
        Recording onB = listen(b);
        assertThat(onB.anything.get()).as("when it starts listening").isEqualTo(1);

        HazelcastInstance third = GRID.cluster().add();
        awaitUntil("a member joined", () -> onB.anything.get() >= 2);
        int before = onB.anything.get();
        third.getLifecycleService().terminate();
        GRID.cluster().members().remove(third);

        awaitUntil("a member left", () -> onB.anything.get() > before);
    }

    @Test
    void aStoreOnAnotherProviderAnnouncesNothingAndSaysSo() {
        Cache<String, byte[]> real = cache(0);
        @SuppressWarnings("unchecked")
        Cache<String, byte[]> plain = (Cache<String, byte[]>) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {Cache.class}, (proxy, method, args) -> method.invoke(real, args));
        List<String> warned;
        try (LogRecords logs = LogRecords.on("dev.ratelimit.jcache")) {
            JCacheRateLimitStore store = JCacheRateLimitStore.builder(plain).build();
            GRID.closing(store);

            assertThat(store.announceTo(new Recording())).isFalse();
            assertThat(store.toString()).contains(", announcements=none");
            warned = logs.records().stream().filter(r -> r.getLevel().intValue() >= Level.WARNING.intValue())
                    .map(LogRecord::getMessage).toList();
        }
        assertThat(warned).as("nothing went wrong: the provider is simply not Hazelcast").isEmpty();
    }

    @Test
    void theGridUnreachableOpensTheOutageBreakerAndAnAnswerOfTheGridDoesNot() throws Exception {
        JCacheRateLimitStore store = store(0, JCacheRateLimitStore.Mode.AUTO);
        assertThat(store.unreachable(new OperationTimeoutException("no answer in time"))).isTrue();
        assertThat(store.unreachable(new CacheException(new MemberLeftException("gone")))).isTrue();
        assertThat(store.unreachable(new TargetDisconnectedException("lost"))).isTrue();
        assertThat(store.unreachable(new EntryProcessorException("the processor failed"))).isFalse();
        assertThat(store.unreachable(new IllegalArgumentException("bad"))).isFalse();

        JCacheRateLimitStore full = JCacheRateLimitStore.builder(cache(0)).executor(work -> {
            throw new RejectedExecutionException("full");
        }).build();
        GRID.closing(full);
        RateLimitRequest request = request(full, "full", null, RateLimitPer.CALLER);
        CompletableFuture<RateLimitDecision> refused = full.acquire("p", request, 1).toCompletableFuture();
        assertThat(refused).isCompletedExceptionally();
        Throwable failure = refused.handle((d, e) -> e).get();
        assertThat(full.unreachable(failure)).as("a full pool: %s", failure).isTrue();
    }

    // ------------------------------------------------------------------------------------------------

    /** A store on member {@code i}, through a cache manager of that member alone: one application instance. */
    private JCacheRateLimitStore store(int i, JCacheRateLimitStore.Mode mode) {
        return GRID.closing(JCacheRateLimitStore.builder(cache(i)).mode(mode).build());
    }

    /** The counts on member {@code i}, through the test's cache manager of that member (Hazelcast allows one). */
    private Cache<String, byte[]> cache(int i) {
        return GRID.counts(i, CACHE);
    }

    /**
     * Makes a count of {@code request}'s limit refuse and gives one of its permits back through {@code store}, in a
     * partition chosen so that its announcement lands in the same partition of the grid as that of the count of
     * {@code after}, then waits until every listener has heard it, and returns it. The announcements of one partition of
     * the grid are written by one member, in order, and its listeners hear them in that order: so an announcement of
     * the count of {@code after} made before has been heard by then, if it was ever made, and a test can count what it
     * heard without waiting on a guess.
     */
    private static String announceMarker(JCacheRateLimitStore store, RateLimitRequest request, String after,
                                         Recording... listeners) throws Exception {
        CountKey key = request.key(0);
        PartitionService partitions = GRID.member(0).getPartitionService();
        int partitionOfAfter = partitions.getPartition(CacheKeys.prefix(key) + after).getPartitionId();
        String marker = null;
        for (int i = 0; marker == null; i++) {
            String candidate = "marker-" + i + "-" + UUID.randomUUID();
            if (partitions.getPartition(CacheKeys.prefix(key) + candidate).getPartitionId() == partitionOfAfter) {
                marker = candidate;
            }
        }
        RateLimitDecision spent = get(store.acquire(marker, request, 1));
        assertThat(get(store.acquire(marker, request, 1)).allowed()).as("the marker's count refuses").isFalse();
        get(store.release(spent));
        String heard = key.name() + (key.plan() == null ? "" : "/" + key.plan()) + "@" + marker;
        awaitUntil("the marker heard", () -> java.util.Arrays.stream(listeners).allMatch(l -> l.gained.contains(heard)));
        return heard;
    }

    private static Recording listen(JCacheRateLimitStore store) {
        Recording heard = new Recording();
        assertThat(store.announceTo(heard)).isTrue();
        return heard;
    }

    /** A limit of one permit a minute, under a name of its own (each test's counts are its own). */
    private static RateLimitRequest request(JCacheRateLimitStore store, String name, String plan, RateLimitPer per) {
        RateLimitPolicy one = new RateLimitPolicy(name, 1, 60, RateLimitAlgorithm.SLIDING_WINDOW);
        CountKey key = new CountKey(name, plan, one.algorithm(), per);
        return RateLimitRequest.of(store.bind(key), key, one, 1, Kind.ACQUIRE);
    }

    private static <T> T get(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    private static void awaitUntil(String what, BooleanSupplier condition) throws Exception {
        Await.until(what, 30, condition::getAsBoolean);
    }

    /** What a listener heard: each count as {@code name[/plan]@partition}, and how often anything may have gained. */
    private static final class Recording implements CountListener {
        final List<String> gained = new CopyOnWriteArrayList<>();
        final AtomicInteger anything = new AtomicInteger();

        @Override
        public void gained(String name, String plan, String partition) {
            gained.add(name + (plan == null ? "" : "/" + plan) + "@" + partition);
        }

        @Override
        public void anyMayHaveGained() {
            anything.incrementAndGet();
        }
    }
}
