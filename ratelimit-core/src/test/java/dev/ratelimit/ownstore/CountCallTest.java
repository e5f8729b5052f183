package dev.ratelimit.ownstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.store.CountCall;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/** The core's count arithmetic on stored bytes, through its public API: what a store of its own relies on. */
class CountCallTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long T0 = 1_000 * SECOND;

    private static RateLimitRequest request(int limit, RateLimitAlgorithm algorithm, long maxWaitNanos) {
        RateLimitPolicy policy = new RateLimitPolicy("a", limit, 8, algorithm);
        return RateLimitRequest.builder()
                .add("a|", new CountKey("a", null, algorithm), policy, 1, Kind.ACQUIRE, maxWaitNanos).build();
    }

    @ParameterizedTest
    @EnumSource(RateLimitAlgorithm.class)
    void bytesThatAreNoCountAreTakenAsNone(RateLimitAlgorithm algorithm) {
        CountCall call = CountCall.acquire(request(3, algorithm, 0), 0, 1, 0, RateLimitDecision.NO_RECEIPT);
        CountCall.Applied fresh = call.apply(null, T0);
        for (byte[] garbage : new byte[][] {{}, {'W'}, {'W', 8, 0, 0, 1, 2, 3}, {'B', 0, 0, 0}, "not a count".getBytes()}) {
            assertThat(call.apply(garbage, T0).reply()).isEqualTo(fresh.reply());
        }
        assertThat(fresh.reply().state()).isEqualTo(State.SPENT);
        assertThat(fresh.reply().remaining()).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(RateLimitAlgorithm.class)
    void aCountThatHoldsNothingIsStoredAsNothing(RateLimitAlgorithm algorithm) {
        RateLimitRequest request = request(3, algorithm, 0);
        CountCall.Applied spent = CountCall.acquire(request, 0, 1, 0, RateLimitDecision.NO_RECEIPT).apply(null, T0);
        assertThat(spent.write()).isTrue();
        assertThat(spent.stored()).isNotNull();

        CountCall.Applied back = CountCall.release(spent.reply().receipt(), 1).apply(spent.stored(), T0 + SECOND);
        assertThat(back.write()).isTrue();
        assertThat(back.stored()).as("removed: the count holds nothing").isNull();
        assertThat(CountCall.release(spent.reply().receipt(), 1).apply(spent.stored(), T0 + 10 * SECOND).write())
                .as("returned by itself already: nothing to give back, nothing to write").isFalse();
    }

    @ParameterizedTest
    @EnumSource(RateLimitAlgorithm.class)
    void aGiveBackAfterARefusalIsAnnouncedOnce(RateLimitAlgorithm algorithm) {
        RateLimitRequest request = request(1, algorithm, 0);
        CountCall acquire = CountCall.acquire(request, 0, 1, 0, RateLimitDecision.NO_RECEIPT);
        CountCall.Applied spent = acquire.apply(null, T0);
        CountCall.Applied refused = acquire.apply(spent.stored(), T0);
        assertThat(refused.reply().state()).isEqualTo(State.REFUSED);
        assertThat(refused.write()).as("the count remembers that it refused").isTrue();
        CountCall.Applied refusedAgain = acquire.apply(refused.stored(), T0);
        assertThat(refusedAgain.write()).as("remembered already").isFalse();

        CountCall.Applied back = CountCall.release(spent.reply().receipt(), 1).apply(refused.stored(), T0);
        assertThat(back.reply().announce()).isTrue();
        CountCall.Applied spentAgain = acquire.apply(back.stored(), T0);
        assertThat(spentAgain.reply().state()).isEqualTo(State.SPENT);
        CountCall.Applied backAgain = CountCall.release(spentAgain.reply().receipt(), 1).apply(spentAgain.stored(), T0);
        assertThat(backAgain.reply().announce()).as("no refusal since the last announcement").isFalse();
    }

    @Test
    void reservationsOfCallersThatWaitAreKeptInTheStoredForm() {
        RateLimitRequest waiting = request(1, RateLimitAlgorithm.SLIDING_WINDOW, 20 * SECOND);
        CountCall acquire = CountCall.acquire(waiting, 0, 1, 0, RateLimitDecision.NO_RECEIPT);
        CountCall.Applied first = acquire.apply(null, T0);
        CountCall.Applied second = acquire.apply(first.stored(), T0);
        CountCall.Applied third = acquire.apply(second.stored(), T0);
        assertThat(second.reply().waitNanos()).as("the first permit returns after the window").isEqualTo(8 * SECOND);
        assertThat(third.reply().waitNanos()).as("behind the second caller").isEqualTo(16 * SECOND);

        CountCall.Applied back = CountCall.release(second.reply().receipt(), 1).apply(third.stored(), T0);
        assertThat(back.write()).as("the second caller's reservation given back").isTrue();
        assertThat(CountCall.release(second.reply().receipt(), 1).apply(back.stored(), T0).write())
                .as("given back once only").isFalse();
        assertThat(CountCall.release(third.reply().receipt(), 1).apply(back.stored(), T0).write())
                .as("the third caller's reservation is still there").isTrue();
    }

    @Test
    void aCallAndItsReplyTravelAsLongs() {
        CountCall call = CountCall.acquire(request(5, RateLimitAlgorithm.TOKEN_BUCKET, 3 * SECOND), 0, 2, 7, 42);
        assertThat(CountCall.ofLongs(call.toLongs())).isEqualTo(call);
        assertThat(CountCall.ofLongs(CountCall.release(42, 3).toLongs())).isEqualTo(CountCall.release(42, 3));
        CountCall.Reply reply = call.apply(null, T0).reply();
        assertThat(CountCall.Reply.ofLongs(reply.toLongs())).isEqualTo(reply);
        assertThatThrownBy(() -> CountCall.ofLongs(new long[3])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CountCall.Reply.ofLongs(new long[] {9, 0, 0, 0, 0, 0, 0, 0}))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
