package dev.ratelimit.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.fail;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.testing.LogRecords;
import dev.ratelimit.core.testing.ManualClock;
import dev.ratelimit.core.testing.RandomSchedule;
import dev.ratelimit.core.testing.RateLimitStoreContract;
import dev.ratelimit.core.testing.ReferenceModel;
import dev.ratelimit.core.testing.ReferenceModel.Item;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The store contract, plus what only the in-process store does: its bounded table and its locking. */
class InProcessRateLimitStoreTest extends RateLimitStoreContract {

    private static final int THREADS = 64;

    @Override
    protected RateLimitStore newStore(ManualClock clock) {
        return new InProcessRateLimitStore(InProcessRateLimitStore.DEFAULT_MAX_TRACKED_PARTITIONS, clock);
    }

    /** A request of enforced limits of cost 1 bound to {@code on}. */
    private static RateLimitRequest bound(InProcessRateLimitStore on, List<Item> items) {
        RateLimitRequest.Builder builder = RateLimitRequest.builder();
        for (Item item : items) {
            CountKey key = new CountKey(item.policy().name(), item.plan(), item.policy().algorithm());
            builder.add(on.bind(key), key, item.policy(), item.cost(), item.kind());
        }
        return builder.build();
    }

    private static RateLimitDecision decide(InProcessRateLimitStore on, String partition, RateLimitPolicy... policies) {
        List<Item> items = new ArrayList<>();
        for (RateLimitPolicy policy : policies) {
            items.add(new Item(policy));
        }
        return on.decide(partition, bound(on, items), 1);
    }

    // ---------------------------------------------------------------- lossless eviction

    /**
     * One randomized schedule against a store that never needs to evict, a store just big enough for the
     * counts in use that must sweep again and again, and the naive model: every decision the same.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 42, 31337})
    void evictionIsLossless(long seed) {
        int operations = 20_000;
        DryRun dry = countsInUseAtMost(seed, operations);
        int capacity = dry.capacity();
        InProcessRateLimitStore roomy = new InProcessRateLimitStore(Integer.MAX_VALUE, clock);
        InProcessRateLimitStore tight = new InProcessRateLimitStore(capacity, clock);
        for (Item item : dry.items.values()) { // every table bound first, as an application binds at deployment
            tight.bind(new CountKey(item.policy().name(), item.plan(), item.policy().algorithm()));
        }
        Map<List<Item>, RateLimitRequest[]> requests = new HashMap<>();
        ReferenceModel model = new ReferenceModel();
        RandomSchedule schedule = new RandomSchedule(seed, "", 1);
        List<RateLimitDecision[]> unreleased = new ArrayList<>();
        List<ReferenceModel.Decision> unreleasedModel = new ArrayList<>();
        Set<List<String>> keys = new HashSet<>();
        int sweeps = 0;
        int refused = 0;
        int givenBack = 0;
        for (int i = 0; i < operations; i++) {
            clock.advanceNanos(schedule.nextAdvanceNanos());
            long now = clock.now();
            String where = "seed " + seed + ", operation " + i + " at t0 + " + (now - t0) + " ns";
            if (schedule.nextIsRelease() && !unreleased.isEmpty()) {
                int index = schedule.nextReleaseIndex(unreleased.size());
                RateLimitDecision[] pair = unreleased.remove(index);
                roomy.giveBack(pair[0]);
                tight.giveBack(pair[1]);
                ReferenceModel.Decision released = unreleasedModel.remove(index);
                model.release(now, new ReferenceModel.Decision(released.allowed(), released.outcomes(),
                        withoutCharges(released, pair[0].request())));
                givenBack++;
                continue;
            }
            String partition = schedule.nextPartition();
            List<Item> items = schedule.nextItems();
            int multiple = schedule.nextMultiple();
            items.forEach(item -> keys.add(List.of(item.key(), partition)));
            RateLimitRequest[] pair = requests.computeIfAbsent(items,
                    it -> new RateLimitRequest[] {bound(roomy, it), bound(tight, it)});
            int trackedBefore = tight.trackedCounts();

            RateLimitDecision inRoomy = roomy.decide(partition, pair[0], multiple);
            RateLimitDecision inTight = tight.decide(partition, pair[1], multiple);
            ReferenceModel.Decision expected = model.acquire(now, partition, items, multiple);

            assertMatches(inRoomy, expected, where);
            assertSameDecision(inTight, inRoomy, where);
            assertThat(tight.trackedCounts()).as("tracked, %s", where).isLessThanOrEqualTo(capacity);
            if (tight.trackedCounts() < trackedBefore) {
                sweeps++;
            }
            if (inRoomy.allowed()) {
                unreleased.add(new RateLimitDecision[] {inRoomy, inTight});
                unreleasedModel.add(expected);
            } else {
                refused++;
            }
        }
        assertThat(keys.size()).as("distinct counts over the schedule").isGreaterThan(10 * capacity);
        assertThat(roomy.trackedCounts()).isEqualTo(keys.size());
        assertThat(sweeps).as("sweeps that dropped counts").isGreaterThan(50);
        assertThat(refused).as("refused").isGreaterThan(1000);
        assertThat(givenBack).as("given back").isGreaterThan(2000);
    }

    private static List<ReferenceModel.Spent> withoutCharges(ReferenceModel.Decision d, RateLimitRequest request) {
        List<ReferenceModel.Spent> spent = new ArrayList<>();
        for (ReferenceModel.Spent s : d.spent()) {
            boolean charge = false;
            for (int i = 0; i < request.size(); i++) {
                String key = request.key(i).toString();
                charge |= key.equals(s.key()) && request.kind(i) == Kind.CHARGE;
            }
            if (!charge) {
                spent.add(s);
            }
        }
        return spent;
    }

    /**
     * What the schedule keeps in the table, from a dry run against the model. The store sweeps at most once a second,
     * dropping every count that holds nothing; so a count occupies the table until at most a second after it last held
     * something or was last touched. Each key's table has room of its own (half the table shared out) and the rest is
     * common room: a table big enough that, at every step, the counts over each key's own room fit in the common room
     * (and one more) never has to let a request through uncounted.
     */
    private static DryRun countsInUseAtMost(long seed, int operations) {
        RandomSchedule schedule = new RandomSchedule(seed, "", 1);
        ReferenceModel model = new ReferenceModel();
        List<ReferenceModel.Decision> unreleased = new ArrayList<>();
        Map<List<String>, Long> busyUntil = new HashMap<>();
        Map<String, Item> items = new HashMap<>();
        List<Map<String, Integer>> steps = new ArrayList<>();
        long now = 0;
        for (int i = 0; i < operations; i++) {
            now += schedule.nextAdvanceNanos();
            if (schedule.nextIsRelease() && !unreleased.isEmpty()) {
                model.release(now, unreleased.remove(schedule.nextReleaseIndex(unreleased.size())));
                continue;
            }
            String partition = schedule.nextPartition();
            List<Item> next = schedule.nextItems();
            ReferenceModel.Decision decision = model.acquire(now, partition, next, schedule.nextMultiple());
            if (decision.allowed()) {
                unreleased.add(decision);
            }
            for (Item item : next) {
                items.putIfAbsent(item.key(), item);
                busyUntil.put(List.of(item.key(), partition), Math.max(now, model.idleAt(item.key(), partition)));
            }
            long horizon = now - SECOND - 1;
            busyUntil.values().removeIf(until -> until < horizon);
            Map<String, Integer> byKey = new HashMap<>();
            busyUntil.keySet().forEach(k -> byKey.merge(k.get(0), 1, Integer::sum));
            steps.add(byKey);
        }
        return new DryRun(items, steps);
    }

    /** The keys a schedule uses, and the counts each keeps at each step. */
    private record DryRun(Map<String, Item> items, List<Map<String, Integer>> steps) {

        /** The smallest table in which no step needs more than the room the store gives each key. */
        int capacity() {
            int tables = items.size();
            for (int capacity = 1; ; capacity++) {
                int share = capacity / 2 / tables;
                int common = capacity - capacity / 2;
                boolean fits = true;
                for (Map<String, Integer> step : steps) {
                    int over = 0;
                    for (int inUse : step.values()) {
                        over += Math.max(0, inUse - share);
                    }
                    fits &= over + 1 <= common;
                }
                if (fits) {
                    return capacity;
                }
            }
        }
    }

    private static void assertSameDecision(RateLimitDecision actual, RateLimitDecision expected, String where) {
        assertThat(actual.allowed()).as("allowed, %s", where).isEqualTo(expected.allowed());
        for (int i = 0; i < expected.size(); i++) {
            Outcome a = actual.outcome(i);
            Outcome e = expected.outcome(i);
            assertThat(a.policy()).as("policy, %s", where).isSameAs(e.policy());
            assertThat(a.state()).as("state of %s, %s", e.policy(), where).isEqualTo(e.state());
            assertThat(a.remaining()).as("remaining of %s, %s", e.policy(), where).isEqualTo(e.remaining());
            assertThat(a.resetNanos()).as("reset of %s, %s", e.policy(), where).isEqualTo(e.resetNanos());
            assertThat(a.retryAfterNanos()).as("retry of %s, %s", e.policy(), where).isEqualTo(e.retryAfterNanos());
        }
    }

    // ---------------------------------------------------------------- a full table

    @Test
    void fullTableLetsANewCountThroughUncountedAndStillDecidesExistingCounts() {
        InProcessRateLimitStore small = new InProcessRateLimitStore(3, clock);
        RateLimitPolicy limit = policy("full", 2, 8);
        for (String p : List.of("a", "b", "c")) {
            assertThat(decide(small, p, limit).outcome(0).spent()).isTrue();
        }
        assertThat(small.trackedCounts()).isEqualTo(3);

        for (int i = 0; i < 5; i++) {
            RateLimitDecision uncounted = decide(small, "d", limit);
            assertThat(uncounted.allowed()).isTrue();
            Outcome o = uncounted.outcome(0);
            assertThat(o.state()).isEqualTo(State.UNCOUNTED);
            assertThat(o.remaining()).isEqualTo(2);
            assertThat(o.resetNanos()).isEqualTo(-1);
            assertThat(o.resetSeconds()).isEqualTo(8);
            small.giveBack(uncounted);
        }
        assertThat(small.trackedCounts()).isEqualTo(3);

        assertOutcome(decide(small, "a", limit).outcome(0), limit, true, 0, 8 * SECOND);
        assertOutcome(decide(small, "a", limit).outcome(0), limit, false, 0, 8 * SECOND);
        assertThat(small.trackedCounts()).isEqualTo(3);
    }

    @Test
    void fullTableCountsTheExistingLimitOfATwoLimitRequestAndLetsTheNewOneThrough() {
        InProcessRateLimitStore small = new InProcessRateLimitStore(1, clock);
        RateLimitPolicy known = policy("known", 2, 60);
        RateLimitPolicy unknown = policy("unknown", 5, 30);
        decide(small, "p", known);

        RateLimitDecision both = decide(small, "p", known, unknown);
        assertThat(both.allowed()).isTrue();
        assertOutcome(both.outcome(0), known, true, 0, 60 * SECOND);
        assertThat(both.outcome(0).spent()).isTrue();
        assertOutcome(both.outcome(1), unknown, true, 5, -1);
        assertThat(both.outcome(1).state()).isEqualTo(State.UNCOUNTED);

        RateLimitDecision refused = decide(small, "p", known, unknown);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.refused()).extracting(Outcome::policy).containsExactly(known);
        assertThat(small.trackedCounts()).isEqualTo(1);
    }

    @Test
    void fullTableTracksNewCountsAgainOnceTheLiveCountsEmptiedAndASecondPassed() {
        InProcessRateLimitStore small = new InProcessRateLimitStore(2, clock);
        RateLimitPolicy limit = policy("full", 2, 8);
        decide(small, "a", limit);
        decide(small, "b", limit);
        assertThat(decide(small, "c", limit).outcome(0).spent()).isFalse();

        clock.advanceSeconds(8); // a and b are empty now

        assertOutcome(decide(small, "c", limit).outcome(0), limit, true, 1, 8 * SECOND);
        assertThat(small.trackedCounts()).isEqualTo(1);
        assertOutcome(decide(small, "d", limit).outcome(0), limit, true, 1, 8 * SECOND);
        assertThat(small.trackedCounts()).isEqualTo(2);
        assertThat(decide(small, "e", limit).outcome(0).spent()).isFalse();
        assertThat(small.trackedCounts()).isEqualTo(2);
    }

    @Test
    void fullTableDropsFullBucketsButKeepsBucketsInUse() {
        InProcessRateLimitStore small = new InProcessRateLimitStore(2, clock);
        RateLimitPolicy limit = policy("bucket", 2, 2, RateLimitAlgorithm.TOKEN_BUCKET); // one per second
        decide(small, "a", limit);
        decide(small, "b", limit);
        decide(small, "b", limit);
        clock.advanceSeconds(1); // a is full again, b is not

        assertThat(decide(small, "c", limit).outcome(0).spent()).isTrue();
        assertThat(small.trackedCounts()).isEqualTo(2);
        assertThat(decide(small, "b", limit).outcome(0).remaining()).as("b kept its count").isZero();
    }

    @Test
    void fullTableSweepsAtMostOncePerSecond() {
        InProcessRateLimitStore small = new InProcessRateLimitStore(2, clock);
        RateLimitPolicy limit = policy("full", 1, 60);
        RateLimitDecision a = decide(small, "a", limit);
        decide(small, "b", limit);
        assertThat(decide(small, "c", limit).outcome(0).spent()).isFalse(); // swept at t0: nothing to drop
        clock.set(t0 + 500_000_000L);
        small.giveBack(a); // a is empty now, but the last sweep was half a second ago

        assertThat(decide(small, "c", limit).outcome(0).spent()).isFalse();
        clock.set(t0 + SECOND - 1);
        assertThat(decide(small, "c", limit).outcome(0).spent()).isFalse();
        clock.set(t0 + SECOND);
        assertOutcome(decide(small, "c", limit).outcome(0), limit, true, 0, 60 * SECOND);
        assertThat(small.trackedCounts()).isEqualTo(2);
        assertThat(decide(small, "b", limit).allowed()).isFalse(); // b was in use: kept
    }

    @Test
    void fullTableWarnsAtMostOncePerMinute() {
        Logger logger = Logger.getLogger(InProcessRateLimitStore.class.getName());
        List<LogRecord> warnings = Collections.synchronizedList(new ArrayList<>());
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                    warnings.add(record);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        boolean parents = logger.getUseParentHandlers();
        logger.addHandler(handler);
        logger.setUseParentHandlers(false);
        try {
            InProcessRateLimitStore small = new InProcessRateLimitStore(1, clock);
            RateLimitPolicy limit = policy("full", 1, 3600);
            decide(small, "a", limit);
            for (int i = 0; i < 100; i++) {
                decide(small, "new" + i, limit);
                clock.advanceMillis(500);
            }
            assertThat(warnings).hasSize(1);
            assertThat(warnings.get(0).getMessage()).contains("ratelimit.max-tracked-partitions");

            clock.advanceSeconds(10); // 60 s after the first warning
            decide(small, "later", limit);
            assertThat(warnings).hasSize(2);
        } finally {
            logger.removeHandler(handler);
            logger.setUseParentHandlers(parents);
        }
    }

    // ---------------------------------------------------------------- one limit's flood, long keys

    /** A request of one enforced limit, bound to {@code on}, whose key counts only failures when {@code failuresOnly}. */
    private static RateLimitRequest one(InProcessRateLimitStore on, RateLimitPolicy policy, boolean failuresOnly) {
        CountKey key = new CountKey(policy.name(), null, policy.algorithm(), dev.ratelimit.core.RateLimitPer.CALLER,
                failuresOnly);
        return RateLimitRequest.of(on.bind(key), key, policy, 1, Kind.ACQUIRE);
    }

    @Test
    void aFloodOfMadeUpPartitionsOnOneLimitLeavesAnotherLimitRoomOfItsOwn() {
        InProcessRateLimitStore small = new InProcessRateLimitStore(20, clock);
        RateLimitPolicy perKey = policy("per-key", 3, 3600);
        RateLimitPolicy login = policy("login-address", 5, 900);
        RateLimitRequest flood = one(small, perKey, false);
        RateLimitRequest guesses = one(small, login, true);
        int uncounted = 0;
        for (int i = 0; i < 1000; i++) {
            RateLimitDecision d = small.decide("X-Api-Key:made-up-" + i, flood, 1);
            assertThat(d.allowed()).isTrue();
            uncounted += d.outcome(0).state() == State.UNCOUNTED ? 1 : 0;
        }
        assertThat(uncounted).as("the flood's own limit lets what has no room through uncounted").isEqualTo(1000 - 15);
        assertThat(small.trackedCounts()).isEqualTo(15); // its own room (5) and the common room (10)

        for (int i = 0; i < 5; i++) {
            assertOutcome(small.decide("addr:192.0.2.1", guesses, 1).outcome(0), login, true, 4 - i, 900 * SECOND);
        }
        Outcome sixth = small.decide("addr:192.0.2.1", guesses, 1).outcome(0);

        assertThat(sixth.state()).as("the 6th failure").isEqualTo(State.REFUSED);
        assertThat(small.trackedCounts()).isEqualTo(16);
        assertThat(small.decide("addr:192.0.2.2", guesses, 1).outcome(0).spent()).as("another address counts too")
                .isTrue();
    }

    @Test
    void aLimitOfFailuresWithoutRoomRefusesWithItsWindowAsRetryAfterAndSaysSoOnceAMinute() {
        try (LogRecords log = LogRecords.on(InProcessRateLimitStore.class.getName()).quiet()) {
            InProcessRateLimitStore small = new InProcessRateLimitStore(4, clock);
            RateLimitPolicy login = policy("login-address", 5, 900);
            RateLimitPolicy other = policy("other", 5, 60);
            RateLimitRequest guesses = one(small, login, true);
            RateLimitRequest both = RateLimitRequest.builder()
                    .add(small.bind(new CountKey("other", null, other.algorithm())),
                            new CountKey("other", null, other.algorithm()), other, 1, Kind.ACQUIRE)
                    .add(guesses.handle(0), guesses.key(0), login, 1, Kind.ACQUIRE).build();
            for (int i = 0; i < 3; i++) { // its own room (1: two tables share 2) and the common room (2)
                assertThat(small.decide("addr:192.0.2." + i, guesses, 1).outcome(0).spent()).isTrue();
            }

            RateLimitDecision refused = small.decide("addr:192.0.2.99", guesses, 1);
            RateLimitDecision refusedToo = small.decide("addr:192.0.2.98", both, 1);

            assertThat(refused.allowed()).isFalse();
            assertThat(refused.outcome(0).state()).isEqualTo(State.REFUSED);
            assertThat(refused.outcome(0).retryAfterNanos()).as("its window").isEqualTo(900 * SECOND);
            assertThat(refused.outcome(0).remaining()).isZero();
            assertThat(refusedToo.allowed()).as("all or nothing: the other limit spends nothing").isFalse();
            assertThat(refusedToo.outcome(0).state()).isEqualTo(State.UNSPENT);
            assertThat(refusedToo.outcome(1).state()).isEqualTo(State.REFUSED);
            assertThat(decide(small, "addr:192.0.2.98", other).outcome(0).remaining())
                    .as("\"other\" spent nothing for the refused request").isEqualTo(4);
            assertThat(log.messages(java.util.logging.Level.WARNING, "\"login-address\"")).isEmpty();
            assertThat(log.messages(java.util.logging.Level.WARNING, "limit login-address"))
                    .as("one warning, naming the limit and what it does").hasSize(1).first().asString()
                    .contains("refused (429)").contains("ratelimit.max-tracked-partitions=4");
            clock.advanceSeconds(59);
            small.decide("addr:192.0.2.97", guesses, 1);
            assertThat(log.messages(java.util.logging.Level.WARNING, "limit login-address")).hasSize(1);
            clock.advanceSeconds(1);
            small.decide("addr:192.0.2.96", guesses, 1);
            assertThat(log.messages(java.util.logging.Level.WARNING, "limit login-address")).hasSize(2);
        }
    }

    @Test
    void aPartitionLongerThan64BytesIsKeptAsADigestOfAtMost64BytesAndCountsAsItself() {
        InProcessRateLimitStore store = new InProcessRateLimitStore(100, clock);
        RateLimitPolicy limit = policy("long-keys", 2, 60);
        RateLimitRequest request = one(store, limit, false);
        String prefix = "X-Api-Key:" + "k".repeat(7_800);
        String first = prefix + "1";
        String second = prefix + "2";

        assertThat(store.decide(first, request, 1).outcome(0).remaining()).isEqualTo(1);
        assertThat(store.decide(new String(first.toCharArray()), request, 1).outcome(0).remaining())
                .as("the same text, another String: the same count").isZero();
        assertThat(store.decide(second, request, 1).outcome(0).remaining()).as("another key sharing 7 800 characters")
                .isEqualTo(1);

        @SuppressWarnings("unchecked")
        Map<String, ?> table = (Map<String, ?>) request.handle(0);
        assertThat(table.keySet()).hasSize(2).allSatisfy(stored -> {
            assertThat(stored.getBytes(java.nio.charset.StandardCharsets.UTF_8).length).isLessThanOrEqualTo(64);
            assertThat(stored).startsWith(PartitionDigest.PREFIX);
        });
        RateLimitDecision spent = store.decide(second, request, 1);
        store.giveBack(spent);
        assertThat(store.decide(second, request, 1).outcome(0).remaining()).as("a give-back finds the count").isZero();
    }

    @Test
    void theStoredPartitionIsAtMost64BytesWhateverTheInputAndShortOnesAreKeptAsTheyAre() {
        PartitionDigest digest = new PartitionDigest();
        String ascii64 = "a".repeat(64);
        String threeByte21 = "\u20ac".repeat(21); // 63 bytes
        String threeByte22 = "\u20ac".repeat(22); // 66 bytes in 22 characters
        String twoByte32 = "\u00e9".repeat(32); // 64 bytes
        String surrogates16 = "\ud83d\ude00".repeat(16); // 16 characters of 4 bytes: 64 bytes
        String surrogates17 = "\ud83d\ude00".repeat(17);
        List<String> kept = List.of("", "anonymous", "addr:2001:db8:85a3::8a2e:370:7334", ascii64, threeByte21, twoByte32,
                surrogates16);
        List<String> digested = List.of("a".repeat(65), threeByte22, "\u00e9".repeat(33), surrogates17,
                "X-Api-Key:" + "\u20ac".repeat(2_600), "\u0000".repeat(100_000));

        for (String partition : kept) {
            assertThat(digest.stored(partition)).as("%d characters", partition.length()).isSameAs(partition);
        }
        for (String partition : digested) {
            String stored = digest.stored(partition);
            assertThat(stored.getBytes(java.nio.charset.StandardCharsets.UTF_8).length).as("%d characters",
                    partition.length()).isLessThanOrEqualTo(64);
            assertThat(stored).startsWith(PartitionDigest.PREFIX).isEqualTo(digest.stored(partition));
        }
        assertThat(digested.stream().map(digest::stored).distinct()).hasSize(digested.size());
        assertThat(new PartitionDigest().stored("a".repeat(65))).as("a key of its own per store")
                .isNotEqualTo(digest.stored("a".repeat(65)));
    }

    @Test
    void theAdminReadsAndRestartsTheCountOfALongPartitionByItsText() {
        InProcessRateLimitStore store = new InProcessRateLimitStore(100, clock);
        RateLimitPolicy limit = policy("long-admin", 3, 60);
        RateLimitRequest request = one(store, limit, false);
        String partition = "X-Api-Key:" + "x".repeat(5_000);
        store.decide(partition, request, 1);
        store.decide(partition, request, 1);

        assertThat(store.inspect(partition, request).toCompletableFuture().join().remaining()).isEqualTo(1);
        store.restart(partition, request).toCompletableFuture().join();
        assertThat(store.trackedCounts()).isZero();
        assertThat(store.inspect(partition, request).toCompletableFuture().join().remaining()).isEqualTo(3);
    }

    @Test
    void maximumBelowOneIsRejected() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new InProcessRateLimitStore(0, clock))
                .withMessage("maxTrackedPartitions must be >= 1, was 0");
    }

    @Test
    void clearForgetsEveryCount() {
        InProcessRateLimitStore store = new InProcessRateLimitStore(10, clock);
        RateLimitPolicy limit = policy("clear", 1, 60);
        RateLimitDecision before = decide(store, "a", limit);
        assertThat(decide(store, "a", limit).allowed()).isFalse();

        store.clear();
        clock.advanceMillis(1);

        assertThat(store.trackedCounts()).isZero();
        assertThat(decide(store, "a", limit).allowed()).isTrue();
        store.giveBack(before); // a permit from before the reset frees nothing of the new count
        assertThat(decide(store, "a", limit).allowed()).isFalse();
    }

    // ---------------------------------------------------------------- the nano clock's range

    @ParameterizedTest(name = "{0}")
    @EnumSource(RateLimitAlgorithm.class)
    void countsWorkWhenTheNanoClockReadsNegative(RateLimitAlgorithm algorithm) {
        ManualClock negative = new ManualClock(-5_000_000_000_123L);
        long start = negative.now();
        InProcessRateLimitStore onNegative = new InProcessRateLimitStore(10, negative);
        RateLimitPolicy limit = policy("default", 3, 60, algorithm);

        for (int i = 0; i < 3; i++) {
            decide(onNegative, "p", limit);
        }
        negative.advanceSeconds(18);
        assertThat(decide(onNegative, "p", limit).allowed()).isFalse();
        negative.set(start + 80 * SECOND);
        assertThat(decide(onNegative, "p", limit).allowed()).isTrue();
    }

    /**
     * {@code System.nanoTime()} has an arbitrary origin and may overflow: only differences between readings
     * are meaningful. A count made just before the reading wraps past {@code Long.MAX_VALUE} must still see
     * its permits return one window later.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(RateLimitAlgorithm.class)
    void permitsReturnWhenTheNanoClockWrapsAroundDuringTheWindow(RateLimitAlgorithm algorithm) {
        ManualClock nearWrap = new ManualClock(Long.MAX_VALUE - 3 * SECOND);
        InProcessRateLimitStore onWrap = new InProcessRateLimitStore(10, nearWrap);
        RateLimitPolicy limit = policy("wrap", 1, 8, algorithm);
        assertThat(decide(onWrap, "p", limit).allowed()).isTrue();

        nearWrap.advanceSeconds(4); // the reading is negative now
        RateLimitDecision refused = decide(onWrap, "p", limit);
        assertThat(refused.allowed()).isFalse();
        long back = algorithm == RateLimitAlgorithm.STRICT_WINDOW ? 5 * SECOND : 4 * SECOND; // strict: after 9 steps
        assertThat(refused.outcome(0).retryAfterNanos()).isEqualTo(back);
        nearWrap.advanceNanos(back - 1);
        assertThat(decide(onWrap, "p", limit).allowed()).isFalse();
        nearWrap.advanceNanos(1);

        assertThat(decide(onWrap, "p", limit).allowed()).isTrue();
    }

    /**
     * The store reads the clock before it finds and locks a count, so a thread can arrive with a reading older
     * than what another thread has already done to the count (created it, re-anchored or rolled it, begun a
     * bucket's epoch). Readings out of order on one thread stand for that interleaving: the stale reading is
     * taken as the instant the count has reached, so no reset is longer than a permit can stay out (a header
     * {@code t} of 61 on a 60-second sliding limit), and it spends from the count as it is.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(RateLimitAlgorithm.class)
    void aReadingOlderThanTheCountIsTakenAsTheCountsInstant(RateLimitAlgorithm algorithm) {
        ManualClock clock = new ManualClock(100 * SECOND);
        InProcessRateLimitStore on = new InProcessRateLimitStore(10, clock);
        RateLimitPolicy limit = policy("stale", 100, 60, algorithm);
        // the longest a permit stays out: a window; a strict window's permit, a window after its step ends
        long longest = algorithm == RateLimitAlgorithm.STRICT_WINDOW ? 60 * SECOND * 9 / 8 : 60 * SECOND;

        clock.set(110 * SECOND);
        RateLimitDecision made = decide(on, "p", limit); // the count is made, or re-anchored, at 110 s
        clock.set(105 * SECOND); // a reading taken before that, by a thread that got here later
        RateLimitDecision stale = decide(on, "p", limit);
        assertThat(stale.allowed()).isTrue();
        assertThat(stale.outcome(0).remaining()).isEqualTo(made.outcome(0).remaining() - 1);
        assertThat(stale.outcome(0).resetNanos()).isBetween(1L, longest);

        clock.set(300 * SECOND); // everything returned: the next request re-anchors the count, or begins an epoch
        decide(on, "p", limit);
        clock.set(200 * SECOND);
        RateLimitDecision staler = decide(on, "p", limit);
        assertThat(staler.outcome(0).remaining()).isEqualTo(98);
        assertThat(staler.outcome(0).resetNanos()).isBetween(1L, longest);
    }

    // ---------------------------------------------------------------- concurrency

    @ParameterizedTest(name = "{0}")
    @EnumSource(RateLimitAlgorithm.class)
    void sixtyFourThreadsOnOneCountAdmitExactlyThePermitLimitEachRemainingSeenOnce(RateLimitAlgorithm algorithm) {
        InProcessRateLimitStore shared = new InProcessRateLimitStore(10, clock); // the clock stands still
        int permits = 20_000;
        int attemptsPerThread = 500;
        RateLimitPolicy limit = policy("hot", permits, 3600, algorithm);
        RateLimitRequest request = bound(shared, List.of(new Item(limit)));
        ConcurrentLinkedQueue<Integer> remainingOfAdmitted = new ConcurrentLinkedQueue<>();
        AtomicInteger refused = new AtomicInteger();

        runConcurrently(thread -> {
            for (int i = 0; i < attemptsPerThread; i++) {
                RateLimitDecision d = shared.decide("one", request, 1);
                if (d.allowed()) {
                    remainingOfAdmitted.add(d.outcome(0).remaining());
                } else {
                    refused.incrementAndGet();
                }
            }
        });

        assertThat(remainingOfAdmitted).hasSize(permits);
        assertThat(new HashSet<>(remainingOfAdmitted)).as("every remaining value seen once")
                .isEqualTo(IntStream.range(0, permits).boxed().collect(Collectors.toSet()));
        assertThat(refused.get()).isEqualTo(THREADS * attemptsPerThread - permits);
        assertThat(shared.decide("one", request, 1).allowed()).isFalse();
    }

    @Test
    void twoLimitsAcrossSixtyFourThreadsAdmitExactlyTheSmallerLimitAllOrNothing() {
        InProcessRateLimitStore shared = new InProcessRateLimitStore(10, clock);
        int permitsA = 10_000;
        int permitsB = 15_000;
        RateLimitPolicy a = policy("a", permitsA, 60);
        RateLimitPolicy b = policy("b", permitsB, 60, RateLimitAlgorithm.TOKEN_BUCKET);
        RateLimitRequest ab = bound(shared, List.of(new Item(a), new Item(b)));
        RateLimitRequest ba = bound(shared, List.of(new Item(b), new Item(a)));
        ConcurrentLinkedQueue<int[]> admitted = new ConcurrentLinkedQueue<>();

        runConcurrently(thread -> {
            for (int i = 0; i < 250; i++) {
                boolean abOrder = (thread + i) % 2 == 0;
                RateLimitDecision d = shared.decide("p", abOrder ? ab : ba, 1);
                if (d.allowed()) {
                    int remainingA = d.outcome(abOrder ? 0 : 1).remaining();
                    int remainingB = d.outcome(abOrder ? 1 : 0).remaining();
                    admitted.add(new int[] {remainingA, remainingB});
                }
            }
        });

        assertThat(admitted).hasSize(permitsA);
        assertThat(admitted.stream().map(r -> r[0]).collect(Collectors.toSet())).as("remaining of a, each once")
                .isEqualTo(IntStream.range(0, permitsA).boxed().collect(Collectors.toSet()));
        assertThat(admitted).allSatisfy(r -> assertThat(r[1] - r[0]).as("b spent together with a")
                .isEqualTo(permitsB - permitsA));
        assertThat(shared.decide("p", ab, 1).allowed()).isFalse();
    }

    @Test
    void requestsListingTwoNamesInOppositeOrdersDoNotDeadlockAndGiveEveryPermitBack() {
        InProcessRateLimitStore shared = new InProcessRateLimitStore(10, clock);
        RateLimitPolicy a = policy("a", Integer.MAX_VALUE, 60);
        RateLimitPolicy b = policy("b", 1_000_000, 60, RateLimitAlgorithm.STRICT_WINDOW);
        RateLimitRequest ab = bound(shared, List.of(new Item(a), new Item(b)));
        RateLimitRequest ba = bound(shared, List.of(new Item(b), new Item(a)));
        AtomicInteger admitted = new AtomicInteger();

        runConcurrently(thread -> {
            for (int i = 0; i < 2_000; i++) {
                RateLimitDecision d = shared.decide("p", thread % 2 == 0 ? ab : ba, 1);
                if (d.allowed()) {
                    admitted.incrementAndGet();
                    shared.giveBack(d);
                }
            }
        });

        assertThat(admitted.get()).isEqualTo(THREADS * 2_000);
        RateLimitDecision after = shared.decide("p", ab, 1);
        assertThat(after.outcome(0).remaining()).isEqualTo(Integer.MAX_VALUE - 1);
        assertThat(after.outcome(1).remaining()).isEqualTo(1_000_000 - 1);
    }

    @Test
    void tableNeverHoldsMoreThanItsMaximumUnderContention() {
        InProcessRateLimitStore small = new InProcessRateLimitStore(100, clock);
        RateLimitPolicy limit = policy("many", 5, 60);
        RateLimitRequest request = bound(small, List.of(new Item(limit)));
        AtomicInteger counted = new AtomicInteger();
        AtomicInteger uncounted = new AtomicInteger();

        runConcurrently(thread -> {
            for (int i = 0; i < 50; i++) {
                RateLimitDecision d = small.decide("t" + thread + "-" + i, request, 1);
                assertThat(d.allowed()).isTrue();
                (d.outcome(0).spent() ? counted : uncounted).incrementAndGet();
            }
        });

        assertThat(counted.get()).isEqualTo(100);
        assertThat(uncounted.get()).isEqualTo(THREADS * 50 - 100);
        assertThat(small.trackedCounts()).isEqualTo(100);
    }

    /** Runs {@code body(thread)} on {@value #THREADS} threads released together; fails if they do not all end within 30 s. */
    private static void runConcurrently(IntConsumer body) {
        CountDownLatch ready = new CountDownLatch(THREADS);
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(THREADS);
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int index = t;
            Thread thread = new Thread(() -> {
                try {
                    ready.countDown();
                    start.await();
                    body.accept(index);
                } catch (Throwable e) {
                    failures.add(e);
                } finally {
                    done.countDown();
                }
            }, "store-test-" + t);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        try {
            assertThat(ready.await(30, TimeUnit.SECONDS)).as("threads ready").isTrue();
            start.countDown();
            if (!done.await(30, TimeUnit.SECONDS)) {
                StringBuilder stuck = new StringBuilder();
                for (Thread thread : threads) {
                    if (thread.isAlive()) {
                        stuck.append(thread.getName()).append(' ').append(thread.getState()).append('\n');
                        for (StackTraceElement frame : thread.getStackTrace()) {
                            stuck.append("    at ").append(frame).append('\n');
                        }
                    }
                }
                fail("threads still running after 30 s (deadlock?):%n%s", stuck);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted");
        }
        if (!failures.isEmpty()) {
            AssertionError error = new AssertionError(failures.size() + " thread(s) failed", failures.peek());
            failures.stream().skip(1).forEach(error::addSuppressed);
            throw error;
        }
    }
}
