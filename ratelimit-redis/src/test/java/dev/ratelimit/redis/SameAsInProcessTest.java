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
import dev.ratelimit.core.store.InProcessRateLimitStore;
import dev.ratelimit.core.testing.ManualClock;
import dev.ratelimit.core.testing.RandomSchedule;
import dev.ratelimit.core.testing.ReferenceModel.Item;
import dev.ratelimit.redis.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The in-process store and the Redis store side by side, on one manual clock: random schedules of
 * acquires (every algorithm, costs, multiples, charges into debt, shadow limits, plans, one name shared by
 * two sizes; callers that wait for their permits beside callers that do not, counts per application) and
 * give-backs, and every outcome must be equal, field by field: state, remaining, reset, retry-after and wait
 * to the nanosecond (the schedule moves the clock in whole microseconds, this store's
 * resolution), and even the receipt. The loops count what they compared, so a loop that compares nothing
 * fails.
 */
class SameAsInProcessTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final int OPERATIONS = 4_000;
    private static final long SECOND = 1_000_000_000L;

    private ManualClock clock;
    private InProcessRateLimitStore inProcess;
    private RedisRateLimitStore redis;
    private final Map<String, Object[]> handles = new HashMap<>();

    @BeforeEach
    void stores() {
        clock = new ManualClock();
        inProcess = new InProcessRateLimitStore(1_000_000, clock);
        redis = RedisRateLimitStore.builder(REDIS.uri()).timeout(Duration.ofSeconds(5))
                .keyPrefix("same-" + UUID.randomUUID() + ":").nanoClock(clock).build();
    }

    @AfterEach
    void close() {
        redis.close();
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 4242, 90210})
    void everyOutcomeOfARandomScheduleEqualsTheInProcessStoresFieldByField(long seed) throws Exception {
        Tally tally = compare(new RandomSchedule(seed, "", 1_000));

        assertThat(tally.acquires).as("acquires").isGreaterThan(2_500);
        assertThat(tally.compared).as("decisions compared: one per acquire").isEqualTo(tally.acquires);
        assertThat(tally.released).as("give-backs").isGreaterThan(800);
        assertThat(tally.states.get(State.SPENT)).as("spent outcomes").isGreaterThan(2_000);
        assertThat(tally.states.get(State.UNSPENT)).as("unspent outcomes").isGreaterThan(100);
        assertThat(tally.states.get(State.REFUSED)).as("refused outcomes").isGreaterThan(250);
        assertThat(tally.shadowRefused).as("shadow refusals").isGreaterThanOrEqualTo(5);
        assertThat(tally.inDebt).as("charges that left a count in debt").isGreaterThanOrEqualTo(5);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 4242, 90210})
    void everyOutcomeOfARandomScheduleOfCallersThatWaitEqualsTheInProcessStoresFieldByField(long seed) throws Exception {
        Tally tally = compare(RandomSchedule.withWaits(seed, "", 1_000));

        assertThat(tally.compared).as("decisions compared: one per acquire").isEqualTo(tally.acquires);
        assertThat(tally.waited).as("calls that waited, the wait equal to the nanosecond").isGreaterThan(100);
        assertThat(tally.released).as("give-backs, reservations among them").isGreaterThan(500);
        assertThat(tally.states.get(State.REFUSED)).as("refused outcomes").isGreaterThan(100);
        assertThat(tally.perApplication).as("outcomes of a count per application, from many partitions")
                .isGreaterThan(200);
    }

    /** Runs {@code schedule} on both stores, comparing every decision. */
    private Tally compare(RandomSchedule schedule) throws Exception {
        Map<List<Item>, RateLimitRequest[]> requests = new IdentityHashMap<>();
        List<RateLimitDecision[]> unreleased = new ArrayList<>();
        Tally tally = new Tally();
        for (int op = 0; op < OPERATIONS; op++) {
            clock.advanceNanos(schedule.nextAdvanceNanos());
            if (schedule.nextIsRelease() && !unreleased.isEmpty()) {
                RateLimitDecision[] pair = unreleased.remove(schedule.nextReleaseIndex(unreleased.size()));
                inProcess.giveBack(pair[0]);
                redis.release(pair[1]).toCompletableFuture().get(5, TimeUnit.SECONDS);
                tally.released++;
                continue;
            }
            String partition = schedule.nextPartition();
            List<Item> items = schedule.nextItems();
            int multiple = schedule.nextMultiple();
            RateLimitRequest[] pair = requests.computeIfAbsent(items, this::bothRequests);
            tally.acquires++;
            RateLimitDecision expected = inProcess.decide(partition, pair[0], multiple);
            RateLimitDecision actual = redis.acquire(partition, pair[1], multiple).toCompletableFuture()
                    .get(5, TimeUnit.SECONDS);
            tally.compared += assertSameDecision(expected, actual, "operation " + op + " at t0 + "
                    + (clock.now() - ManualClock.DEFAULT_START) + " ns: " + pair[1] + " x" + multiple);
            for (int i = 0; i < expected.size(); i++) {
                tally.states.merge(expected.outcome(i).state(), 1, Integer::sum);
                if (items.get(i).kind() == Kind.SHADOW && expected.outcome(i).state() == State.REFUSED) {
                    tally.shadowRefused++;
                }
                if (items.get(i).kind() == Kind.CHARGE && expected.outcome(i).remaining() == 0) {
                    tally.inDebt++;
                }
                if (items.get(i).perApplication()) {
                    tally.perApplication++;
                }
            }
            if (expected.waitNanos() > 0) {
                tally.waited++;
            }
            if (expected.allowed()) {
                unreleased.add(new RateLimitDecision[] {expected, actual});
            }
        }
        return tally;
    }

    /** What a schedule exercised, so that a loop that compares nothing fails. */
    private static final class Tally {
        final Map<State, Integer> states = new EnumMap<>(State.class);
        int acquires;
        int compared;
        int released;
        int shadowRefused;
        int inDebt;
        int waited;
        int perApplication;
    }

    @Test
    void extremesEqualTheInProcessStoreToo() throws Exception {
        RateLimitPolicy yearly = new RateLimitPolicy("yearly", 3, RateLimitPolicy.MAX_WINDOW_SECONDS);
        RateLimitPolicy huge = new RateLimitPolicy("huge", Integer.MAX_VALUE, 3600, RateLimitAlgorithm.TOKEN_BUCKET);
        RateLimitPolicy strict = new RateLimitPolicy("strict", 1, 1, RateLimitAlgorithm.STRICT_WINDOW);
        RateLimitPolicy bucket = new RateLimitPolicy("bucket", 7, 3, RateLimitAlgorithm.TOKEN_BUCKET);
        List<List<Item>> schedule = List.of(
                List.of(new Item(yearly), new Item(huge)),
                List.of(new Item(yearly, null, 1, Kind.CHARGE)), // x 2^31 - 1 below: the sum saturates, never wraps
                List.of(new Item(huge, null, 1_000, Kind.ACQUIRE), new Item(strict)),
                List.of(new Item(strict, null, 1, Kind.SHADOW), new Item(bucket, "gold", 7, Kind.ACQUIRE)),
                List.of(new Item(bucket, "gold", 3, Kind.CHARGE)),
                List.of(new Item(bucket, "gold", 1, Kind.SHADOW), new Item(yearly)));
        int[] multiples = {1, Integer.MAX_VALUE, 1_000_000, 1, 1_000, 1};
        long[] advances = {0, 1_000, 999_000, 125_000_000L, 2_999_999_000L, 1_000};
        int compared = 0;
        for (int round = 0; round < 3; round++) {
            for (int k = 0; k < schedule.size(); k++) {
                clock.advanceNanos(advances[k]);
                RateLimitRequest[] pair = bothRequests(schedule.get(k));
                RateLimitDecision expected = inProcess.decide("extremes", pair[0], multiples[k]);
                RateLimitDecision actual = redis.acquire("extremes", pair[1], multiples[k]).toCompletableFuture()
                        .get(5, TimeUnit.SECONDS);
                compared += assertSameDecision(expected, actual, "round " + round + ", request " + k);
                if (expected.allowed() && k % 2 == 0) {
                    inProcess.giveBack(expected);
                    redis.release(actual).toCompletableFuture().get(5, TimeUnit.SECONDS);
                }
            }
            clock.advanceSeconds(1);
        }
        assertThat(compared).isEqualTo(3 * schedule.size());
    }

    @Test
    void extremeWaitsEqualTheInProcessStoreToo() throws Exception {
        RateLimitPolicy yearly = new RateLimitPolicy("yearly", 3, RateLimitPolicy.MAX_WINDOW_SECONDS);
        RateLimitPolicy huge = new RateLimitPolicy("huge", Integer.MAX_VALUE, 3600, RateLimitAlgorithm.TOKEN_BUCKET);
        RateLimitPolicy strict = new RateLimitPolicy("strict", 1, 1, RateLimitAlgorithm.STRICT_WINDOW);
        long forever = Long.MAX_VALUE;
        List<List<Item>> schedule = List.of(
                // more permits than the strict count's limit: reserved for when the count is empty
                List.of(waiting(yearly, forever), waiting(strict, forever)),
                List.of(new Item(yearly, null, 1, Kind.CHARGE)), // x 2^31 - 1: a debt that lasts a year
                List.of(waiting(yearly, forever), new Item(strict, null, 1, Kind.SHADOW)), // behind the debt
                List.of(waiting(huge, forever), waiting(strict, SECOND)), // the strict queue is too long
                List.of(new Item(huge, null, 1, Kind.CHARGE)),
                List.of(waiting(huge, forever), new Item(yearly, null, 1, Kind.SHADOW)));
        int[] multiples = {3, Integer.MAX_VALUE, 2, 1_000_000, Integer.MAX_VALUE, 1};
        long[] advances = {0, 1_000, 999_000, 125_000_000L, 2_999_999_000L, 1_000};
        int compared = 0;
        int waited = 0;
        for (int round = 0; round < 3; round++) {
            for (int k = 0; k < schedule.size(); k++) {
                clock.advanceNanos(advances[k]);
                RateLimitRequest[] pair = bothRequests(schedule.get(k));
                RateLimitDecision expected = inProcess.decide("extremes", pair[0], multiples[k]);
                RateLimitDecision actual = redis.acquire("extremes", pair[1], multiples[k]).toCompletableFuture()
                        .get(5, TimeUnit.SECONDS);
                compared += assertSameDecision(expected, actual, "round " + round + ", request " + k);
                waited += expected.waitNanos() > SECOND ? 1 : 0;
                if (expected.allowed() && k % 2 == 0) {
                    inProcess.giveBack(expected);
                    redis.release(actual).toCompletableFuture().get(5, TimeUnit.SECONDS);
                }
            }
            clock.advanceSeconds(1);
        }
        assertThat(compared).isEqualTo(3 * schedule.size());
        assertThat(waited).as("calls that would wait more than a second").isGreaterThanOrEqualTo(6);
    }

    private static Item waiting(RateLimitPolicy policy, long maxWaitNanos) {
        return new Item(policy, null, 1, Kind.ACQUIRE, maxWaitNanos, false);
    }

    /** The same limits bound to each store: [in-process, Redis]. */
    private RateLimitRequest[] bothRequests(List<Item> items) {
        RateLimitRequest.Builder local = RateLimitRequest.builder();
        RateLimitRequest.Builder shared = RateLimitRequest.builder();
        for (Item item : items) {
            CountKey key = new CountKey(item.policy().name(), item.plan(), item.policy().algorithm(),
                    item.perApplication() ? RateLimitPer.APPLICATION : RateLimitPer.CALLER);
            Object[] bound = handles.computeIfAbsent(item.key(), k -> new Object[] {inProcess.bind(key), redis.bind(key)});
            local.add(bound[0], key, item.policy(), item.cost(), item.kind(), item.maxWaitNanos());
            shared.add(bound[1], key, item.policy(), item.cost(), item.kind(), item.maxWaitNanos());
        }
        return new RateLimitRequest[] {local.build(), shared.build()};
    }

    /** Every field of every outcome; returns 1, the decisions compared. */
    private static int assertSameDecision(RateLimitDecision expected, RateLimitDecision actual, String where) {
        assertThat(actual.partition()).as(where).isEqualTo(expected.partition());
        assertThat(actual.multiple()).as(where).isEqualTo(expected.multiple());
        assertThat(actual.allowed()).as("allowed, %s", where).isEqualTo(expected.allowed());
        assertThat(actual.size()).as(where).isEqualTo(expected.size());
        for (int i = 0; i < expected.size(); i++) {
            Outcome e = expected.outcome(i);
            Outcome a = actual.outcome(i);
            assertThat(a).as("outcome %d, %s", i, where).isEqualTo(e); // a record: every field, the receipt too
        }
        return 1;
    }
}
