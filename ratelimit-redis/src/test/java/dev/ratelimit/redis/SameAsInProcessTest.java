package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
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
 * two sizes) and give-backs, and every outcome must be equal, field by field: state, remaining, reset and
 * retry-after to the nanosecond (the schedule moves the clock in whole microseconds, this store's
 * resolution), and even the receipt. The loops count what they compared, so a loop that compares nothing
 * fails.
 */
class SameAsInProcessTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final int OPERATIONS = 4_000;

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
        RandomSchedule schedule = new RandomSchedule(seed, "", 1_000);
        Map<List<Item>, RateLimitRequest[]> requests = new IdentityHashMap<>();
        List<RateLimitDecision[]> unreleased = new ArrayList<>();
        Map<State, Integer> states = new EnumMap<>(State.class);
        int acquires = 0;
        int compared = 0;
        int released = 0;
        int shadowRefused = 0;
        int inDebt = 0;
        for (int op = 0; op < OPERATIONS; op++) {
            clock.advanceNanos(schedule.nextAdvanceNanos());
            if (schedule.nextIsRelease() && !unreleased.isEmpty()) {
                RateLimitDecision[] pair = unreleased.remove(schedule.nextReleaseIndex(unreleased.size()));
                inProcess.giveBack(pair[0]);
                redis.release(pair[1]).toCompletableFuture().get(5, TimeUnit.SECONDS);
                released++;
                continue;
            }
            String partition = schedule.nextPartition();
            List<Item> items = schedule.nextItems();
            int multiple = schedule.nextMultiple();
            RateLimitRequest[] pair = requests.computeIfAbsent(items, this::bothRequests);
            acquires++;
            RateLimitDecision expected = inProcess.decide(partition, pair[0], multiple);
            RateLimitDecision actual = redis.acquire(partition, pair[1], multiple).toCompletableFuture()
                    .get(5, TimeUnit.SECONDS);
            compared += assertSameDecision(expected, actual, "operation " + op + " at t0 + "
                    + (clock.now() - ManualClock.DEFAULT_START) + " ns: " + pair[1] + " x" + multiple);
            for (int i = 0; i < expected.size(); i++) {
                states.merge(expected.outcome(i).state(), 1, Integer::sum);
                if (items.get(i).kind() == Kind.SHADOW && expected.outcome(i).state() == State.REFUSED) {
                    shadowRefused++;
                }
                if (items.get(i).kind() == Kind.CHARGE && expected.outcome(i).remaining() == 0) {
                    inDebt++;
                }
            }
            if (expected.allowed()) {
                unreleased.add(new RateLimitDecision[] {expected, actual});
            }
        }
        assertThat(acquires).as("acquires").isGreaterThan(2_500);
        assertThat(compared).as("decisions compared: one per acquire").isEqualTo(acquires);
        assertThat(released).as("give-backs").isGreaterThan(800);
        assertThat(states.get(State.SPENT)).as("spent outcomes").isGreaterThan(2_000);
        assertThat(states.get(State.UNSPENT)).as("unspent outcomes").isGreaterThan(100);
        assertThat(states.get(State.REFUSED)).as("refused outcomes").isGreaterThan(250);
        assertThat(shadowRefused).as("shadow refusals").isGreaterThanOrEqualTo(5);
        assertThat(inDebt).as("charges that left a count in debt").isGreaterThanOrEqualTo(5);
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

    /** The same limits bound to each store: [in-process, Redis]. */
    private RateLimitRequest[] bothRequests(List<Item> items) {
        RateLimitRequest.Builder local = RateLimitRequest.builder();
        RateLimitRequest.Builder shared = RateLimitRequest.builder();
        for (Item item : items) {
            CountKey key = new CountKey(item.policy().name(), item.plan(), item.policy().algorithm());
            Object[] bound = handles.computeIfAbsent(item.key(), k -> new Object[] {inProcess.bind(key), redis.bind(key)});
            local.add(bound[0], key, item.policy(), item.cost(), item.kind());
            shared.add(bound[1], key, item.policy(), item.cost(), item.kind());
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
