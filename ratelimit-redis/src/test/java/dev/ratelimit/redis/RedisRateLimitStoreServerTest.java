package dev.ratelimit.redis;

import static dev.ratelimit.redis.SameAsInProcessTest.policy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitDecision.Outcome;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.redis.internal.RedisKeys;
import dev.ratelimit.redis.testing.RedisServerExtension;
import dev.ratelimit.redis.testing.Resp;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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

    private static RedisRateLimitStore store;
    private static Resp resp;
    private static final AtomicInteger PARTITIONS = new AtomicInteger();

    @BeforeAll
    static void connect() throws Exception {
        store = RedisRateLimitStore.builder(REDIS.uri()).timeout(Duration.ofSeconds(5)).build();
        resp = REDIS.client();
        acquire(partition(), policy("warm-up", 1, 1)); // connected, scripts loaded
    }

    @AfterAll
    static void close() {
        store.close();
        resp.close();
    }

    @Test
    void timeComesFromTheServerClock() throws Exception {
        String partition = partition();
        @SuppressWarnings("unchecked")
        List<String> before = (List<String>) resp.call("TIME");
        acquire(partition, policy("clock", 3, 60));
        @SuppressWarnings("unchecked")
        List<String> after = (List<String>) resp.call("TIME");
        long anchor = Long.parseLong((String) resp.call("HGET", key(partition, "clock"), "a"));
        assertThat(anchor).isBetween(micros(before), micros(after));
    }

    @Test
    void aCountExpiresWhenItsLastPermitReturns() throws Exception {
        String partition = partition();
        acquire(partition, policy("expiry", 3, 8));
        long ttl = resp.number("PTTL", key(partition, "expiry"));
        assertThat(ttl).isBetween(7_000L, 8_000L);
    }

    @Test
    void anIdleCountVanishesByItselfAndCountsAfreshAfterwards() throws Exception {
        String partition = partition();
        RateLimitPolicy policy = policy("idle", 2, 1);
        acquire(partition, policy);
        assertThat(acquire(partition, policy).outcomes().get(0).remaining()).isZero();
        String key = key(partition, "idle");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (resp.number("EXISTS", key) == 1 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(resp.number("EXISTS", key)).as("the count vanished within a second or so").isZero();
        Outcome fresh = acquire(partition, policy).outcomes().get(0);
        assertThat(fresh.allowed()).isTrue();
        assertThat(fresh.remaining()).isEqualTo(1);
    }

    @Test
    void givingBackEveryPermitDeletesTheCount() throws Exception {
        String partition = partition();
        RateLimitDecision decision = acquire(partition, policy("given", 3, 60), policy("other", 3, 60));
        store.release(decision);
        acquire(partition(), policy("barrier", 1, 1)); // same connection: the give-back ran before it
        assertThat(resp.number("EXISTS", key(partition, "given"), key(partition, "other"))).isZero();
    }

    @Test
    void aRefusalNamesTheWaitAndSpendsNothing() throws Exception {
        String partition = partition();
        RateLimitPolicy small = policy("small", 1, 60);
        RateLimitPolicy large = policy("large", 5, 60);
        assertThat(acquire(partition, large, small).allowed()).isTrue();
        RateLimitDecision refused = acquire(partition, large, small);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.refused()).extracting(Outcome::policy).containsExactly(small);
        assertThat(refused.retryAfterSeconds()).isBetween(59L, 60L);
        assertThat(refused.outcomes().get(0).remaining()).isEqualTo(4);
        assertThat(resp.string("HGET", key(partition, "large"), "0")).isEqualTo("1");
    }

    @Test
    void keysCarryThePartitionByLengthSoNoneCollideAndAllOfARequestShareASlot() throws Exception {
        String[] partitions = {"a", "a}", "}a", "{", "}", "", "1:a", "a:b", "b", "x\uD800", "x?", "x\uD83D\uDE00",
                "{1:a}", "sub:ä", "X-Api-Key:k"};
        RedisKeys keys = new RedisKeys("p:");
        Set<String> seen = new HashSet<>();
        for (String partition : partitions) {
            String tag = RedisKeys.tag(partition);
            List<String> names = List.of("default", "burst", "hourly", "a", "b");
            Set<Integer> slots = new HashSet<>();
            for (String name : names) {
                String key = keys.key(tag, name);
                assertThat(seen.add(key)).as("unique key " + key).isTrue();
                slots.add(SlotHash.getSlot(key));
            }
            assertThat(slots).as("one slot for the counts of partition \"" + partition + "\"").hasSize(1);
        }
        assertThat(RedisKeys.tag("X-Api-Key:abc")).isEqualTo("{13:X-Api-Key:abc}");
        assertThat(RedisKeys.tag("")).isEqualTo("{0:}");
        assertThat(RedisKeys.tag("sub:ä")).isEqualTo("{6:sub:ä}");
        assertThat(RedisKeys.tag("x\uD800")).isEqualTo("{x0078d800}");

        // and in Redis: every one of these partitions has its own count
        String run = partition();
        for (String partition : partitions) {
            Outcome first = acquire(run + partition, policy("own", 1, 60)).outcomes().get(0);
            assertThat(first.allowed()).as("first request of \"" + partition + "\"").isTrue();
        }
    }

    @ParameterizedTest(name = "{0} limit(s)")
    @ValueSource(ints = {1, 2, 3})
    void oneCommandPerRequest(int limits) throws Exception {
        List<RateLimitPolicy> policies = new ArrayList<>();
        for (int i = 0; i < limits; i++) {
            policies.add(policy("rt" + i, 1_000, 60));
        }
        String partition = partition();
        store.acquire(partition, policies).toCompletableFuture().get(5, TimeUnit.SECONDS);
        int requests = 50;
        Map<String, Long> before = commandCalls();
        for (int i = 0; i < requests; i++) {
            assertThat(store.acquire(partition, policies).toCompletableFuture().get(5, TimeUnit.SECONDS).allowed()).isTrue();
        }
        Map<String, Long> after = commandCalls();
        Map<String, Long> delta = new HashMap<>();
        after.forEach((command, calls) -> {
            long d = calls - before.getOrDefault(command, 0L);
            if (d != 0 && !command.equals("info")) {
                delta.put(command, d);
            }
        });
        // commandstats also counts what the script calls inside Redis: one TIME per request, and per
        // count one HMGET, one HSET and one PEXPIRE; the client sent one EVALSHA per request, nothing else
        long n = requests;
        assertThat(delta).as("commands Redis ran for " + requests + " requests of " + limits + " limit(s)")
                .isEqualTo(Map.of("evalsha", n, "time", n, "hmget", n * limits, "hset", n * limits,
                        "pexpire", n * limits));
    }

    @Test
    void aScriptCacheFlushCostsOneEvalThenEvalshaAgain() throws Exception {
        String partition = partition();
        RateLimitPolicy policy = policy("flush", 3, 60);
        assertThat(resp.string("SCRIPT", "FLUSH")).isEqualTo("OK");
        assertThat(acquire(partition, policy).outcomes().get(0).remaining()).isEqualTo(2);
        Map<String, Long> before = commandCalls();
        assertThat(acquire(partition, policy).outcomes().get(0).remaining()).isEqualTo(1);
        Map<String, Long> after = commandCalls();
        assertThat(after.get("evalsha") - before.getOrDefault("evalsha", 0L)).isEqualTo(1);
        assertThat(after.getOrDefault("eval", 0L) - before.getOrDefault("eval", 0L)).isZero();
    }

    @Test
    void manyThreadsOneCountAdmitExactlyThePermitLimit() throws Exception {
        String partition = partition();
        RateLimitPolicy policy = policy("crowd", 137, 60);
        int threads = 8;
        int perThread = 100;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<CompletableFuture<Integer>> admitted = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            admitted.add(CompletableFuture.supplyAsync(() -> {
                try {
                    go.await();
                    List<CompletableFuture<RateLimitDecision>> inFlight = new ArrayList<>();
                    for (int i = 0; i < perThread; i++) {
                        inFlight.add(store.acquire(partition, List.of(policy)).toCompletableFuture());
                    }
                    int allowed = 0;
                    for (CompletableFuture<RateLimitDecision> f : inFlight) {
                        allowed += f.get(10, TimeUnit.SECONDS).allowed() ? 1 : 0;
                    }
                    return allowed;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, pool));
        }
        go.countDown();
        int total = 0;
        for (CompletableFuture<Integer> f : admitted) {
            total += f.get(30, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(total).isEqualTo(137);
    }

    @Test
    void concurrentRequestsOfSeveralLimitsSpendAllOrNothing() throws Exception {
        String partition = partition();
        RateLimitPolicy tight = policy("tight", 50, 60);
        RateLimitPolicy loose = policy("loose", 80, 60);
        List<CompletableFuture<RateLimitDecision>> inFlight = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            inFlight.add(store.acquire(partition, List.of(loose, tight)).toCompletableFuture());
        }
        int allowed = 0;
        for (CompletableFuture<RateLimitDecision> f : inFlight) {
            allowed += f.get(10, TimeUnit.SECONDS).allowed() ? 1 : 0;
        }
        assertThat(allowed).isEqualTo(50);
        assertThat(acquire(partition, loose).outcomes().get(0).remaining()).isEqualTo(80 - 50 - 1);
    }

    @Test
    void describesItselfWithoutThePassword() {
        try (RedisRateLimitStore secret = RedisRateLimitStore.builder("redis://user:s3cret@127.0.0.1:" + REDIS.port())
                .keyPrefix("app1:").onFailure(OnFailure.LOCAL).timeout(Duration.ofMillis(100)).build()) {
            assertThat(secret.toString())
                    .isEqualTo("RedisRateLimitStore(uri=redis://***@127.0.0.1:" + REDIS.port()
                            + ", cluster=false, timeout-millis=100, key-prefix=app1:, on-failure=local)")
                    .doesNotContain("s3cret");
        }
    }

    private static Map<String, Long> commandCalls() {
        String info = resp.string("INFO", "commandstats");
        Map<String, Long> calls = new HashMap<>();
        for (String line : info.split("\r\n")) {
            if (line.startsWith("cmdstat_")) {
                String command = line.substring("cmdstat_".length(), line.indexOf(':'));
                String field = line.substring(line.indexOf("calls=") + 6);
                calls.put(command, Long.parseLong(field.substring(0, field.indexOf(','))));
            }
        }
        return calls;
    }

    static RateLimitDecision acquire(String partition, RateLimitPolicy... policies) throws Exception {
        return store.acquire(partition, List.of(policies)).toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    private static String key(String partition, String name) {
        return new RedisKeys(RedisKeys.DEFAULT_PREFIX).key(RedisKeys.tag(partition), name);
    }

    private static String partition() {
        return "server-test-" + PARTITIONS.incrementAndGet();
    }

    private static long micros(List<String> time) {
        return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
    }
}
