package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.core.testing.ManualClock;
import dev.ratelimit.core.testing.ReferenceModel.Item;
import dev.ratelimit.redis.internal.RedisKeys;
import dev.ratelimit.redis.testing.CommandStats;
import dev.ratelimit.redis.testing.RedisServerExtension;
import dev.ratelimit.redis.testing.Resp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Redis Cluster of one node that owns every slot: it refuses a script whose keys lie in different slots
 * (CROSSSLOT) just as a large cluster does, so it proves that every script call keeps to one slot, and that
 * the store speaks the cluster protocol ({@code ratelimit.redis.cluster=true}). A request of counts per caller
 * is one script; one that mixes counts per application (another slot) with them is split, one call per slot,
 * and must still decide exactly as the in-process store does (compared on a manual clock, where nothing
 * happens between the calls).
 */
class RedisClusterTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension("--cluster-enabled", "yes",
            "--cluster-announce-ip", "127.0.0.1");

    @BeforeAll
    static void assignAllSlots() throws Exception {
        try (Resp resp = REDIS.client()) {
            List<String> addSlots = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            for (int slot = 0; slot < 16_384; slot++) {
                addSlots.add(Integer.toString(slot));
            }
            assertThat(resp.string(addSlots.toArray(String[]::new))).isEqualTo("OK");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!resp.string("CLUSTER", "INFO").contains("cluster_state:ok")) {
                assertThat(System.nanoTime()).as("cluster state ok within 10 s").isLessThan(deadline);
                Thread.sleep(50);
            }
        }
    }

    @Test
    void theClusterRefusesAScriptOverSeveralSlots() {
        try (Resp resp = REDIS.client()) {
            assertThatThrownBy(() -> resp.call("EVAL", "return 1", "2", "ratelimit:{a}x", "ratelimit:{b}x"))
                    .hasMessageContaining("CROSSSLOT");
        }
    }

    @Test
    void aRequestOfThreeLimitsIsDecidedInOneScriptOnTheCluster() throws Exception {
        try (RedisRateLimitStore store = RedisRateLimitStore.builder(REDIS.uri()).cluster(true)
                .timeout(Duration.ofSeconds(5)).build();
             Resp resp = REDIS.client()) {
            assertThat(store.awaitConnection(Duration.ofSeconds(10))).isTrue();
            RateLimitRequest limits = RateLimitRequest.builder()
                    .add(bind(store, "default", null, RateLimitAlgorithm.SLIDING_WINDOW), key("default", null, RateLimitAlgorithm.SLIDING_WINDOW),
                            new RateLimitPolicy("default", 3, 60), 1, Kind.ACQUIRE)
                    .add(bind(store, "burst", "gold", RateLimitAlgorithm.TOKEN_BUCKET), key("burst", "gold", RateLimitAlgorithm.TOKEN_BUCKET),
                            new RateLimitPolicy("burst", 1, 1, RateLimitAlgorithm.TOKEN_BUCKET), 1, Kind.ACQUIRE)
                    .add(bind(store, "hourly", null, RateLimitAlgorithm.STRICT_WINDOW), key("hourly", null, RateLimitAlgorithm.STRICT_WINDOW),
                            new RateLimitPolicy("hourly", 500, 3600, RateLimitAlgorithm.STRICT_WINDOW), 2, Kind.SHADOW)
                    .build();
            List<String> partitions = List.of("X-Api-Key:k1", "sub:alice", "}{", "");
            CommandStats before = CommandStats.of(resp);
            for (String partition : partitions) {
                RateLimitDecision first = acquire(store, partition, limits);
                assertThat(first.allowed()).as(partition).isTrue();
                RateLimitDecision second = acquire(store, partition, limits);
                assertThat(second.refused()).extracting(o -> o.policy().name()).containsExactly("burst");
                store.release(first).toCompletableFuture().get(5, TimeUnit.SECONDS);
                assertThat(acquire(store, partition, limits).allowed()).as("given back on the cluster").isTrue();
            }
            CommandStats after = CommandStats.of(resp);

            long calls = 4L * partitions.size(); // three acquires and one give-back per partition
            assertThat(after.succeededSince(before)).as("one script per call, each over the request's three counts")
                    .containsEntry("evalsha", calls).containsEntry("time", calls).containsEntry("get", 3 * calls)
                    .doesNotContainKeys("eval", "hmget", "hget", "mget");
            assertThat(after.failedSince(before)).isEmpty();
            assertThat(store.toString()).contains("cluster=true");
        }
    }

    @Test
    void aRequestMixingCountsPerApplicationAndPerCallerIsAllOrNothingAcrossTheirTwoSlots() throws Exception {
        try (RedisRateLimitStore store = RedisRateLimitStore.builder(REDIS.uri()).cluster(true).keyPrefix("mixed:")
                .timeout(Duration.ofSeconds(5)).build();
             Resp resp = REDIS.client()) {
            assertThat(store.awaitConnection(Duration.ofSeconds(10))).isTrue();
            CountKey partnerKey = new CountKey("partner", null, RateLimitAlgorithm.SLIDING_WINDOW, RateLimitPer.APPLICATION);
            CountKey userKey = key("user", null, RateLimitAlgorithm.SLIDING_WINDOW);
            RateLimitRequest both = RateLimitRequest.builder()
                    .add(store.bind(partnerKey), partnerKey, new RateLimitPolicy("partner", 2, 60), 1, Kind.ACQUIRE)
                    .add(store.bind(userKey), userKey, new RateLimitPolicy("user", 1, 60), 1, Kind.ACQUIRE)
                    .build();

            CommandStats start = CommandStats.of(resp);
            RateLimitDecision alice = acquire(store, "alice", both);
            CommandStats afterAlice = CommandStats.of(resp);
            assertThat(alice.outcomes()).extracting(Outcome::remaining).containsExactly(1, 0);
            assertThat(afterAlice.succeededSince(start)).as("one script per slot").containsEntry("evalsha", 2L)
                    .containsEntry("set", 2L);

            RateLimitDecision aliceAgain = acquire(store, "alice", both);
            CommandStats afterRefusal = CommandStats.of(resp);
            assertThat(aliceAgain.refused()).extracting(o -> o.policy().name()).containsExactly("user");
            assertThat(aliceAgain.outcome(0).state()).isEqualTo(State.UNSPENT);
            assertThat(aliceAgain.outcome(0).remaining()).isEqualTo(1);
            assertThat(afterRefusal.succeededSince(afterAlice))
                    .as("refused by the caller's part, decided first: the count every caller shares is only read")
                    .containsEntry("evalsha", 2L).doesNotContainKeys("set", "del");

            assertThat(acquire(store, "bob", both).outcome(0).remaining()).isZero();
            CommandStats beforeCarol = CommandStats.of(resp);
            RateLimitDecision carol = acquire(store, "carol", both);
            CommandStats afterCarol = CommandStats.of(resp);
            assertThat(carol.refused()).extracting(o -> o.policy().name()).containsExactly("partner");
            assertThat(carol.outcome(1).state()).isEqualTo(State.UNSPENT);
            assertThat(carol.outcome(1).remaining()).isEqualTo(1);
            assertThat(afterCarol.succeededSince(beforeCarol))
                    .as("her own part spent, the shared part refused, her permit given back").containsEntry("evalsha", 3L);
            assertThat(resp.number("EXISTS", "mixed:" + RedisKeys.tag("carol") + "user")).as("so her count holds nothing")
                    .isZero();

            store.release(alice).toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(CommandStats.of(resp).succeededSince(afterCarol)).as("a give-back: one script per slot")
                    .containsEntry("evalsha", 2L);
            assertThat(acquire(store, "dave", both).allowed()).as("alice's shared permit is back").isTrue();
            assertThat(CommandStats.of(resp).failedSince(start)).isEmpty();
        }
    }

    @Test
    void theFirstPartMovesToTheInstantOfTheSecondWhenThatOneWaitsLonger() throws Exception {
        ManualClock clock = new ManualClock();
        InProcessRateLimitStore inProcess = new InProcessRateLimitStore(1_000, clock);
        try (RedisRateLimitStore store = RedisRateLimitStore.builder(REDIS.uri()).cluster(true).keyPrefix("moves:")
                .timeout(Duration.ofSeconds(5)).nanoClock(clock).build();
             Resp resp = REDIS.client()) {
            assertThat(store.awaitConnection(Duration.ofSeconds(10))).isTrue();
            Twin twin = new Twin(clock, inProcess, store);
            // the partner: one call every 1 s window; the user: one every 8 s; both strict, so steps of 125 ms and 1 s
            Item partner = new Item(policy("partner", 1, 1, RateLimitAlgorithm.STRICT_WINDOW), null, 1, Kind.ACQUIRE,
                    30 * SECOND, true);
            Item user = new Item(policy("user", 1, 8, RateLimitAlgorithm.STRICT_WINDOW), null, 1, Kind.ACQUIRE,
                    30 * SECOND, false);
            List<Item> both = List.of(partner, user);

            assertThat(twin.acquire("alice", both).waitNanos()).isZero();
            CommandStats before = CommandStats.of(resp);
            RateLimitDecision second = twin.acquire("alice", both);
            CommandStats after = CommandStats.of(resp);

            // the partner's permit would exist in step 9 (1.125 s), alice's own only in 9 s: the call goes then
            assertThat(second.waitNanos()).isEqualTo(9 * SECOND);
            assertThat(second.outcomes()).extracting(Outcome::waitNanos).containsExactly(9 * SECOND, 9 * SECOND);
            assertThat(after.succeededSince(before)).as("the partner's part, alice's part, the partner's part moved")
                    .containsEntry("evalsha", 3L);
            RateLimitDecision bob = twin.acquire("bob", List.of(partner));
            assertThat(bob.waitNanos()).as("bob queues behind alice's permit, which moved to step 72 (left in step 9, "
                    + "it would have let him go in step 18)").isEqualTo(10_125_000_000L);
            twin.release(second);
            twin.release(bob);
            assertThat(twin.acquire("carol", List.of(partner)).waitNanos()).as("both given back: nothing is reserved")
                    .isEqualTo(1_125_000_000L);
        }
    }

    @Test
    void aSplitRequestThatCannotSettleSpendsNothingAndSaysWhenItWouldHaveGone() throws Exception {
        ManualClock clock = new ManualClock();
        try (RedisRateLimitStore store = RedisRateLimitStore.builder(REDIS.uri()).cluster(true).keyPrefix("settle:")
                .timeout(Duration.ofSeconds(5)).nanoClock(clock).mostMoves(0).build()) {
            assertThat(store.awaitConnection(Duration.ofSeconds(10))).isTrue();
            Twin twin = new Twin(clock, null, store);
            Item partner = new Item(policy("partner", 1, 1, RateLimitAlgorithm.STRICT_WINDOW), null, 1, Kind.ACQUIRE,
                    30 * SECOND, true);
            Item user = new Item(policy("user", 1, 8, RateLimitAlgorithm.STRICT_WINDOW), null, 1, Kind.ACQUIRE,
                    30 * SECOND, false);
            assertThat(twin.acquire("alice", List.of(partner, user)).allowed()).isTrue();

            // as if others had reserved each time: no move allowed, so the parts never go at one instant
            RateLimitDecision unsettled = twin.acquire("alice", List.of(partner, user));

            assertThat(unsettled.allowed()).isFalse();
            assertThat(unsettled.refused()).extracting(o -> o.policy().name()).containsExactly("user");
            assertThat(unsettled.retryAfterNanos()).as("when it would have gone").isEqualTo(9 * SECOND);
            assertThat(unsettled.outcome(0).state()).isEqualTo(State.UNSPENT);
            assertThat(twin.acquire("bob", List.of(partner)).waitNanos()).as("nothing left reserved for the partner")
                    .isEqualTo(1_125_000_000L);
            assertThat(twin.acquire("alice", List.of(user)).waitNanos()).as("nor in alice's count").isEqualTo(9 * SECOND);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {3, 1999})
    void splitRequestsDecideExactlyAsTheInProcessStoreOnARandomSchedule(long seed) throws Exception {
        ManualClock clock = new ManualClock();
        InProcessRateLimitStore inProcess = new InProcessRateLimitStore(100_000, clock);
        try (RedisRateLimitStore store = RedisRateLimitStore.builder(REDIS.uri()).cluster(true)
                .keyPrefix("random-" + seed + ":").timeout(Duration.ofSeconds(5)).nanoClock(clock).build();
             Resp resp = REDIS.client()) {
            assertThat(store.awaitConnection(Duration.ofSeconds(10))).isTrue();
            Twin twin = new Twin(clock, inProcess, store);
            long wait = 2 * SECOND;
            Item partner = new Item(policy("partner", 2, 1, RateLimitAlgorithm.STRICT_WINDOW), null, 1, Kind.ACQUIRE,
                    0, true);
            Item partnerWaits = new Item(partner.policy(), null, 1, Kind.ACQUIRE, wait, true);
            Item shared = new Item(policy("shared", 3, 1, RateLimitAlgorithm.TOKEN_BUCKET), null, 1, Kind.ACQUIRE,
                    wait, true);
            Item user = new Item(policy("user", 1, 1), null, 1, Kind.ACQUIRE, 0, false);
            Item userWaits = new Item(user.policy(), null, 1, Kind.ACQUIRE, 3 * SECOND, false);
            Item own = new Item(policy("own", 2, 2, RateLimitAlgorithm.TOKEN_BUCKET), null, 1, Kind.ACQUIRE,
                    3 * SECOND, false);
            List<List<Item>> requests = List.of(
                    List.of(partnerWaits, userWaits), // both wait: the per-application part first
                    List.of(userWaits, partner), // only the caller's part waits: it goes first
                    List.of(partnerWaits, user),
                    List.of(partner, user), // nothing waits: the caller's part first
                    List.of(shared, own),
                    List.of(own, partnerWaits, new Item(user.policy(), null, 1, Kind.SHADOW, 0, false)),
                    List.of(new Item(partner.policy(), null, 1, Kind.CHARGE, 0, true), userWaits),
                    List.of(shared, new Item(own.policy(), null, 2, Kind.CHARGE, 0, false)),
                    List.of(partnerWaits),
                    List.of(userWaits),
                    List.of(user));
            Random random = new Random(seed);
            List<RateLimitDecision> unreleased = new ArrayList<>();
            int split = 0;
            int waited = 0;
            int refused = 0;
            long calls = 0;
            CommandStats start = CommandStats.of(resp);
            for (int op = 0; op < 1_500; op++) {
                int advance = random.nextInt(10);
                clock.advanceNanos(advance < 4 ? 0 : advance < 7 ? 62_500_000L * random.nextInt(4)
                        : random.nextLong(400_000) * 1_000);
                if (random.nextInt(4) == 0 && !unreleased.isEmpty()) {
                    RateLimitDecision back = unreleased.remove(unreleased.size() - 1 - random.nextInt(
                            Math.min(unreleased.size(), 5)));
                    calls += twin.release(back);
                    continue;
                }
                List<Item> items = requests.get(random.nextInt(requests.size()));
                RateLimitDecision decision = twin.acquire("p" + random.nextInt(3), items);
                boolean twoSlots = items.stream().anyMatch(Item::perApplication)
                        && items.stream().anyMatch(i -> !i.perApplication());
                split += twoSlots ? 1 : 0;
                calls += twoSlots ? 2 : 1;
                waited += twoSlots && decision.waitNanos() > 0 ? 1 : 0;
                refused += twoSlots && !decision.allowed() ? 1 : 0;
                if (decision.allowed()) {
                    unreleased.add(decision);
                }
            }
            long evalsha = CommandStats.of(resp).succeededSince(start).get("evalsha");
            assertThat(split).as("split requests").isGreaterThan(800);
            assertThat(waited).as("split requests that waited").isGreaterThan(150);
            assertThat(refused).as("split requests refused").isGreaterThan(150);
            assertThat(evalsha).as("script calls: beyond one per slot, give-backs of a refused part and moves")
                    .isGreaterThan(calls + 100);
        }
    }

    private static final long SECOND = 1_000_000_000L;

    private static RateLimitPolicy policy(String name, int permitLimit, int windowSeconds, RateLimitAlgorithm algorithm) {
        return new RateLimitPolicy(name, permitLimit, windowSeconds, algorithm);
    }

    private static RateLimitPolicy policy(String name, int permitLimit, int windowSeconds) {
        return new RateLimitPolicy(name, permitLimit, windowSeconds);
    }

    /**
     * The same requests on the cluster and (when given) the in-process store, on one manual clock: every decision
     * must be the same, field by field, receipts included.
     */
    private static final class Twin {
        private final ManualClock clock;
        private final InProcessRateLimitStore inProcess;
        private final RedisRateLimitStore redis;
        private final Map<String, Object[]> handles = new HashMap<>();
        private final Map<RateLimitDecision, RateLimitDecision> expected = new IdentityHashMap<>();

        Twin(ManualClock clock, InProcessRateLimitStore inProcess, RedisRateLimitStore redis) {
            this.clock = clock;
            this.inProcess = inProcess;
            this.redis = redis;
        }

        RateLimitDecision acquire(String partition, List<Item> items) throws Exception {
            RateLimitRequest.Builder local = RateLimitRequest.builder();
            RateLimitRequest.Builder shared = RateLimitRequest.builder();
            for (Item item : items) {
                CountKey key = new CountKey(item.policy().name(), null, item.policy().algorithm(),
                        item.perApplication() ? RateLimitPer.APPLICATION : RateLimitPer.CALLER);
                Object[] bound = handles.computeIfAbsent(item.key(), k -> new Object[] {
                        inProcess == null ? null : inProcess.bind(key), redis.bind(key)});
                local.add(bound[0], key, item.policy(), item.cost(), item.kind(), item.maxWaitNanos());
                shared.add(bound[1], key, item.policy(), item.cost(), item.kind(), item.maxWaitNanos());
            }
            RateLimitDecision actual = RedisClusterTest.acquire(redis, partition, shared.build());
            if (inProcess != null) {
                RateLimitDecision wanted = inProcess.decide(partition, local.build(), 1);
                assertThat(actual.outcomes()).as("%s of %s at t0 + %d ns", items, partition,
                        clock.now() - ManualClock.DEFAULT_START).isEqualTo(wanted.outcomes());
                expected.put(actual, wanted);
            }
            return actual;
        }

        /** Gives back on both; returns the script calls it took at least (one per slot with a permit to give back). */
        long release(RateLimitDecision decision) throws Exception {
            redis.release(decision).toCompletableFuture().get(5, TimeUnit.SECONDS);
            RateLimitDecision wanted = expected.remove(decision);
            if (wanted != null) {
                inProcess.giveBack(wanted);
            }
            boolean application = false;
            boolean caller = false;
            for (int i = 0; i < decision.size(); i++) {
                if (decision.outcome(i).state() == State.SPENT && decision.request().kind(i) != Kind.CHARGE) {
                    application |= decision.request().key(i).perApplication();
                    caller |= !decision.request().key(i).perApplication();
                }
            }
            return (application ? 1 : 0) + (caller ? 1 : 0);
        }
    }

    private static CountKey key(String name, String plan, RateLimitAlgorithm algorithm) {
        return new CountKey(name, plan, algorithm);
    }

    private static Object bind(RedisRateLimitStore store, String name, String plan, RateLimitAlgorithm algorithm) {
        return store.bind(key(name, plan, algorithm));
    }

    private static RateLimitDecision acquire(RedisRateLimitStore store, String partition, RateLimitRequest request)
            throws Exception {
        return store.acquire(partition, request, 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
    }
}
