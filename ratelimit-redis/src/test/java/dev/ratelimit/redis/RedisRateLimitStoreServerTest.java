package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitPer;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.redis.internal.RedisKeys;
import dev.ratelimit.core.testing.Await;
import dev.ratelimit.redis.testing.CommandStats;
import dev.ratelimit.redis.testing.RedisServerExtension;
import dev.ratelimit.redis.testing.Resp;
import dev.ratelimit.redis.testing.StoredCount;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The Redis store on the server's clock, as in production: what the contract tests cannot see. */
class RedisRateLimitStoreServerTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final AtomicInteger PARTITIONS = new AtomicInteger();
    private static RedisRateLimitStore store;
    private static Resp resp;
    /** What each call is on this Redis: {@code fcall} (7 and later) or {@code evalsha}. */
    private static String script;

    @BeforeAll
    static void connect() throws Exception {
        store = RedisRateLimitStore.builder(REDIS.uri()).timeout(Duration.ofSeconds(5)).build();
        resp = REDIS.client();
        script = CommandStats.scriptCommand(resp);
        assertThat(store.awaitConnection(Duration.ofSeconds(10))).isTrue();
        acquire(partition(), request(item("warm-up", 1, 1, RateLimitAlgorithm.SLIDING_WINDOW, 1, Kind.ACQUIRE)));
    }

    @AfterAll
    static void close() {
        store.close();
        resp.close();
    }

    @Test
    void timeComesFromTheServerClock() throws Exception {
        String partition = partition();
        long before = serverMicros();
        RateLimitDecision decision = acquire(partition, request(item("clock", 3, 60, RateLimitAlgorithm.SLIDING_WINDOW, 1,
                Kind.ACQUIRE), item("bucket", 3, 60, RateLimitAlgorithm.TOKEN_BUCKET, 1, Kind.ACQUIRE)));
        long after = serverMicros();

        StoredCount window = StoredCount.read(resp, key(partition, "clock"));
        assertThat(window.kind()).isEqualTo('w');
        assertThat(window.steps()).isEqualTo(8);
        assertThat(window.anchorOrTat()).as("anchor, in server microseconds").isBetween(before, after);
        assertThat(window.stepOrEpoch()).as("step: 60 s / 8").isEqualTo(7_500_000);
        assertThat(decision.outcome(0).receipt()).as("receipt: the anchor in nanoseconds")
                .isEqualTo(window.anchorOrTat() * 1_000);
        StoredCount bucket = StoredCount.read(resp, key(partition, "bucket"));
        assertThat(bucket.kind()).isEqualTo('b');
        assertThat(bucket.stepOrEpoch()).as("epoch").isBetween(before, after);
        assertThat(bucket.anchorOrTat()).as("tat: one interval (20 s) later").isEqualTo(bucket.stepOrEpoch() + 20_000_000);
        assertThat(decision.outcome(1).receipt()).as("receipt: the epoch").isEqualTo(bucket.stepOrEpoch() * 1_000);
    }

    @ParameterizedTest(name = "{0} limit(s)")
    @ValueSource(ints = {1, 2, 3})
    void anAcquireIsOneEvalshaWhateverItsLimitsAlgorithmsCostsAndKinds(int limits) throws Exception {
        List<Object[]> all = List.of(
                item("one", 100_000, 60, RateLimitAlgorithm.SLIDING_WINDOW, 2, Kind.ACQUIRE),
                item("two", 100_000, 60, RateLimitAlgorithm.TOKEN_BUCKET, 1, Kind.SHADOW),
                item("three", 100_000, 60, RateLimitAlgorithm.STRICT_WINDOW, 3, Kind.CHARGE));
        RateLimitRequest request = request(all.subList(0, limits).toArray(Object[][]::new));
        String partition = partition();
        int calls = 50;
        CommandStats before = CommandStats.of(resp);
        for (int i = 0; i < calls; i++) {
            RateLimitDecision decision = acquire(partition, request);
            assertThat(decision.outcomes()).allMatch(Outcome::spent);
        }
        CommandStats after = CommandStats.of(resp);

        // commandstats also counts what the script runs inside Redis: one TIME per call, and per count one GET
        // and one SET (value and expiry at once); the client sent one EVALSHA per call, and nothing else
        long n = calls;
        assertThat(after.succeededSince(before)).as("commands Redis ran for %d acquires of %d limit(s)", calls, limits)
                .isEqualTo(Map.of(script, n, "time", n, "get", n * limits, "set", n * limits));
        assertThat(after.failedSince(before)).isEmpty();
    }

    @Test
    void aCallThatWaitsIsReservedInOneEvalshaFromTheServersClock() throws Exception {
        String partition = partition();
        RateLimitPolicy partner = new RateLimitPolicy("waits", 1, 1, RateLimitAlgorithm.STRICT_WINDOW); // 125 ms steps
        CountKey key = new CountKey("waits", null, RateLimitAlgorithm.STRICT_WINDOW);
        RateLimitRequest waiting = RateLimitRequest.builder()
                .add(store.bind(key), key, partner, 1, Kind.ACQUIRE, 5_000_000_000L).build();
        assertThat(acquire(partition, waiting).waitNanos()).isZero();

        long before = serverMicros();
        CommandStats statsBefore = CommandStats.of(resp);
        RateLimitDecision second = acquire(partition, waiting);
        CommandStats statsAfter = CommandStats.of(resp);
        long after = serverMicros();

        StoredCount stored = StoredCount.read(resp, key(partition, "waits"));
        assertThat(stored.reservations()).as("one permit in step 9, when step 0's has returned")
                .isDeepEqualTo(new long[][] {{9, 1}});
        assertThat(stored.fields()).hasSize(4 + 9 + 2); // the value without reservations, then one (step, permits)
        long goes = stored.anchorOrTat() + 9 * stored.stepOrEpoch();
        assertThat(second.outcome(0).receipt()).as("receipt: the start of step 9").isEqualTo(goes * 1_000);
        assertThat(second.waitNanos()).as("from the server's clock to the start of step 9")
                .isBetween((goes - after) * 1_000, (goes - before) * 1_000);
        assertThat(statsAfter.succeededSince(statsBefore)).as("a reservation is one script call like any other")
                .isEqualTo(Map.of(script, 1L, "time", 1L, "get", 1L, "set", 1L));
    }

    @Test
    void aCountPerApplicationIsThePartitionApplicationsAndAMixedRequestIsStillOneScript() throws Exception {
        CountKey appWide = new CountKey("app-wide", null, RateLimitAlgorithm.SLIDING_WINDOW, RateLimitPer.APPLICATION);
        CountKey own = new CountKey("own", null, RateLimitAlgorithm.TOKEN_BUCKET);
        RateLimitRequest request = RateLimitRequest.builder()
                .add(store.bind(appWide), appWide, new RateLimitPolicy("app-wide", 5, 60), 1, Kind.ACQUIRE)
                .add(store.bind(own), own, new RateLimitPolicy("own", 5, 60, RateLimitAlgorithm.TOKEN_BUCKET), 1,
                        Kind.ACQUIRE)
                .build();
        String alice = partition();
        String bob = partition();

        acquire(alice, request);
        CommandStats before = CommandStats.of(resp);
        RateLimitDecision bobs = acquire(bob, request);
        CommandStats after = CommandStats.of(resp);

        assertThat(bobs.outcomes()).extracting(Outcome::remaining).as("one count for both; each caller's own")
                .containsExactly(3, 4);
        assertThat(resp.number("EXISTS", "ratelimit:{11:application}app-wide")).isEqualTo(1);
        assertThat(resp.number("EXISTS", key(alice, "app-wide"), key(bob, "app-wide"))).isZero();
        assertThat(resp.number("EXISTS", key(alice, "own"), key(bob, "own"))).isEqualTo(2);
        assertThat(after.succeededSince(before)).as("two slots, but one Redis: one script")
                .isEqualTo(Map.of(script, 1L, "time", 1L, "get", 2L, "set", 2L));
    }

    @Test
    void aRefusedAcquireWritesNothingAndAGiveBackIsOneEvalshaToo() throws Exception {
        String partition = partition();
        RateLimitRequest request = request(
                item("roomy", 10, 60, RateLimitAlgorithm.SLIDING_WINDOW, 1, Kind.ACQUIRE),
                item("tight", 1, 60, RateLimitAlgorithm.TOKEN_BUCKET, 1, Kind.ACQUIRE),
                item("shadow", 10, 60, RateLimitAlgorithm.STRICT_WINDOW, 1, Kind.SHADOW),
                item("charge", 10, 60, RateLimitAlgorithm.STRICT_WINDOW, 1, Kind.CHARGE));
        RateLimitDecision first = acquire(partition, request);
        assertThat(first.allowed()).isTrue();

        CommandStats before = CommandStats.of(resp);
        RateLimitDecision refused = acquire(partition, request);
        CommandStats afterRefusal = CommandStats.of(resp);
        long given = store.releaseCounting(first).toCompletableFuture().get(5, TimeUnit.SECONDS);
        CommandStats afterRelease = CommandStats.of(resp);
        assertThat(given).as("permits given back: all but the charge's").isEqualTo(3);

        assertThat(refused.allowed()).isFalse();
        assertThat(refused.outcomes()).extracting(Outcome::state)
                .containsExactly(State.UNSPENT, State.REFUSED, State.UNSPENT, State.UNSPENT);
        assertThat(afterRefusal.succeededSince(before)).as("a refusal reads and writes nothing back")
                .isEqualTo(Map.of(script, 1L, "time", 1L, "get", 4L));
        // three counts get their permit back (the charge stays spent); each then holds nothing and is deleted
        assertThat(afterRelease.succeededSince(afterRefusal)).as("one give-back of three limits")
                .isEqualTo(Map.of(script, 1L, "time", 1L, "get", 3L, "del", 3L));
        assertThat(resp.number("EXISTS", key(partition, "roomy"), key(partition, "tight"), key(partition, "shadow"),
                key(partition, "charge"))).as("only the charge's count is left").isEqualTo(1);
    }

    @Test
    void aScriptCacheFlushCostsExactlyOneEvalThenTheLoadedScriptAgain() throws Exception {
        String partition = partition();
        RateLimitRequest request = request(item("flush", 3, 60, RateLimitAlgorithm.SLIDING_WINDOW, 1, Kind.ACQUIRE));
        assertThat(resp.string("SCRIPT", "FLUSH")).isEqualTo("OK");
        if (script.equals("fcall")) {
            assertThat(resp.string("FUNCTION", "FLUSH")).isEqualTo("OK");
        }

        CommandStats before = CommandStats.of(resp);
        RateLimitDecision first = acquire(partition, request); // EVALSHA (FCALL): not found; then EVAL, which caches it
        CommandStats afterFirst = CommandStats.of(resp);
        // on Redis 7 the store loads its function library again meanwhile (FUNCTION LOAD, once)
        Await.until("the function library loaded again", 10, () -> !script.equals("fcall")
                || CommandStats.of(resp).succeededSince(before).containsKey("function|load"));
        CommandStats reloaded = CommandStats.of(resp);
        RateLimitDecision second = acquire(partition, request);
        store.release(second).toCompletableFuture().get(5, TimeUnit.SECONDS);
        CommandStats afterMore = CommandStats.of(resp);

        assertThat(first.outcome(0).remaining()).isEqualTo(2);
        assertThat(second.outcome(0).remaining()).isEqualTo(1);
        assertThat(afterFirst.failedSince(before)).as("the call that found no script").isEqualTo(Map.of(script, 1L));
        Map<String, Long> ran = new java.util.TreeMap<>(afterFirst.succeededSince(before));
        ran.remove("function|load");
        assertThat(ran).as("then exactly one EVAL").isEqualTo(Map.of("eval", 1L, "time", 1L, "get", 1L, "set", 1L));
        assertThat(afterMore.failedSince(reloaded)).isEmpty();
        assertThat(afterMore.succeededSince(reloaded)).as("the loaded script again, for acquires and give-backs alike")
                .containsEntry(script, 2L).doesNotContainKey("eval");
    }

    @Test
    void keysCarryThePartitionByLengthThenTheNameAndPlanSoNoneCollideAndARequestsShareASlot() throws Exception {
        String[] partitions = {"a", "a}", "}a", "{", "}", "", "1:a", "a:b", "b", "x\uD800", "x?", "x\uD83D\uDE00",
                "{1:a}", "sub:ä", "X-Api-Key:k", "a/b"};
        List<CountKey> countKeys = List.of(new CountKey("default", null, RateLimitAlgorithm.SLIDING_WINDOW),
                new CountKey("burst", null, RateLimitAlgorithm.SLIDING_WINDOW),
                new CountKey("burst", "gold", RateLimitAlgorithm.SLIDING_WINDOW),
                new CountKey("burst.gold", null, RateLimitAlgorithm.SLIDING_WINDOW),
                new CountKey("b", "urst", RateLimitAlgorithm.TOKEN_BUCKET));
        RedisKeys keys = new RedisKeys("p:");
        Set<String> seen = new HashSet<>();
        for (String partition : partitions) {
            Set<Integer> slots = new HashSet<>();
            for (CountKey countKey : countKeys) {
                String key = keys.key(RedisKeys.tag(partition), RedisKeys.suffix(countKey));
                assertThat(seen.add(key)).as("unique key " + key).isTrue();
                slots.add(SlotHash.getSlot(key));
            }
            assertThat(slots).as("one slot for the counts of partition \"" + partition + "\"").hasSize(1);
        }
        assertThat(RedisKeys.tag("X-Api-Key:abc")).isEqualTo("{13:X-Api-Key:abc}");
        assertThat(RedisKeys.tag("")).isEqualTo("{0:}");
        assertThat(RedisKeys.tag("sub:ä")).isEqualTo("{6:sub:ä}");
        assertThat(RedisKeys.tag("x\uD800")).isEqualTo("{x0078d800}");

        // and in Redis: the plan follows the name
        RateLimitRequest gold = RateLimitRequest.of(store.bind(countKeys.get(2)), countKeys.get(2),
                new RateLimitPolicy("burst", 5, 60), 1, Kind.ACQUIRE);
        acquire("sub:bob", gold);
        assertThat(resp.number("EXISTS", "ratelimit:{7:sub:bob}burst/gold")).isEqualTo(1);
    }

    @Test
    void aKeyHoldingSomethingElseIsCountedAfresh() throws Exception {
        String partition = partition();
        resp.call("SET", key(partition, "window"), "b,1,1,1,1");
        resp.call("SET", key(partition, "bucket"), "w\u0008garbage");
        RateLimitDecision decision = acquire(partition, request(
                item("window", 3, 60, RateLimitAlgorithm.SLIDING_WINDOW, 1, Kind.ACQUIRE),
                item("bucket", 3, 60, RateLimitAlgorithm.TOKEN_BUCKET, 1, Kind.ACQUIRE)));
        assertThat(decision.outcomes()).extracting(Outcome::remaining).containsExactly(2, 2);
        assertThat(StoredCount.read(resp, key(partition, "window")).kind()).isEqualTo('w');
        assertThat(StoredCount.read(resp, key(partition, "bucket")).kind()).isEqualTo('b');
    }

    @Test
    void manyConcurrentRequestsOnOneCountAdmitExactlyThePermitLimit() throws Exception {
        String partition = partition();
        RateLimitRequest request = request(item("crowd", 137, 60, RateLimitAlgorithm.SLIDING_WINDOW, 1, Kind.ACQUIRE));
        List<CompletableFuture<RateLimitDecision>> inFlight = new ArrayList<>();
        for (int i = 0; i < 800; i++) {
            inFlight.add(store.acquire(partition, request, 1).toCompletableFuture());
        }
        int allowed = 0;
        for (CompletableFuture<RateLimitDecision> f : inFlight) {
            allowed += f.get(10, TimeUnit.SECONDS).allowed() ? 1 : 0;
        }
        assertThat(allowed).isEqualTo(137);
    }

    @Test
    void describesItselfWithoutThePasswordAndIsNamedRedis() {
        try (RedisRateLimitStore secret = RedisRateLimitStore.builder("redis://user:s3cret@127.0.0.1:" + REDIS.port())
                .keyPrefix("app1:").timeout(Duration.ofMillis(100)).build()) {
            assertThat(secret.toString())
                    .isEqualTo("RedisRateLimitStore(uri=redis://***@127.0.0.1:" + REDIS.port()
                            + ", cluster=false, client=jedis+lettuce, timeout-millis=100, key-prefix=app1:)")
                    .doesNotContain("s3cret");
            assertThat(secret.storeName()).isEqualTo("redis");
        }
    }

    // ------------------------------------------------------------------------------------------------

    static Object[] item(String name, int permitLimit, int windowSeconds, RateLimitAlgorithm algorithm, int cost, Kind kind) {
        return new Object[] {new RateLimitPolicy(name, permitLimit, windowSeconds, algorithm), cost, kind};
    }

    private static RateLimitRequest request(Object[]... items) {
        RateLimitRequest.Builder builder = RateLimitRequest.builder();
        for (Object[] item : items) {
            RateLimitPolicy policy = (RateLimitPolicy) item[0];
            CountKey key = new CountKey(policy.name(), null, policy.algorithm());
            builder.add(store.bind(key), key, policy, (Integer) item[1], (Kind) item[2]);
        }
        return builder.build();
    }

    private static RateLimitDecision acquire(String partition, RateLimitRequest request) throws Exception {
        return store.acquire(partition, request, 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    private static String key(String partition, String name) {
        return new RedisKeys(RedisKeys.DEFAULT_PREFIX).key(RedisKeys.tag(partition), name);
    }

    private static String partition() {
        return "server-test-" + PARTITIONS.incrementAndGet();
    }

    private static long serverMicros() {
        @SuppressWarnings("unchecked")
        List<String> time = (List<String>) resp.call("TIME");
        return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
    }
}
