package dev.ratelimit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.ratelimit.core.RateLimitRequest.Kind;
import org.junit.jupiter.api.Test;

/** The limits a store is asked to decide: the builder's validation and what the request keeps. */
class RateLimitRequestTest {

    private static final RateLimitPolicy BURST = new RateLimitPolicy("burst", 5, 1);
    private static final RateLimitPolicy HOURLY = new RateLimitPolicy("hourly", 500, 3600);
    private static final CountKey BURST_KEY = new CountKey("burst", null, RateLimitAlgorithm.SLIDING_WINDOW);
    private static final CountKey HOURLY_KEY = new CountKey("hourly", null, RateLimitAlgorithm.SLIDING_WINDOW);

    @Test
    void requestNeedsAtLeastOneLimit() {
        assertThatIllegalArgumentException().isThrownBy(() -> RateLimitRequest.builder().build())
                .withMessage("a request needs at least one limit");
    }

    @Test
    void missingKeyPolicyOrKindIsRejected() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RateLimitRequest.builder().add(null, null, BURST, 1, Kind.ACQUIRE))
                .withMessage("key, policy and kind must not be null");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RateLimitRequest.builder().add(null, BURST_KEY, null, 1, Kind.ACQUIRE))
                .withMessage("key, policy and kind must not be null");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RateLimitRequest.builder().add(null, BURST_KEY, BURST, 1, null))
                .withMessage("key, policy and kind must not be null");
    }

    @Test
    void policyOfAnotherNameThanItsCountsIsRejectedNamingBoth() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RateLimitRequest.builder().add(null, HOURLY_KEY, BURST, 1, Kind.ACQUIRE))
                .withMessage("the policy \"burst\" 5/1s does not belong to the counts hourly");
    }

    @Test
    void policyOfAnotherAlgorithmThanItsCountsIsRejectedNamingBoth() {
        RateLimitPolicy bucket = new RateLimitPolicy("burst", 5, 1, RateLimitAlgorithm.TOKEN_BUCKET);

        assertThatIllegalArgumentException()
                .isThrownBy(() -> RateLimitRequest.builder().add(null, BURST_KEY, bucket, 1, Kind.ACQUIRE))
                .withMessage("the policy \"burst\" 5/1s TOKEN_BUCKET has another algorithm than its counts burst "
                        + "(SLIDING_WINDOW)");
    }

    @Test
    void costBelowOneIsRejectedNamingTheLimitAndTheValue() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RateLimitRequest.builder().add(null, BURST_KEY, BURST, 0, Kind.ACQUIRE))
                .withMessage("the cost of \"burst\" 5/1s must be >= 1, was 0");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RateLimitRequest.of(null, BURST_KEY, BURST, -2, Kind.CHARGE))
                .withMessage("the cost of \"burst\" 5/1s must be >= 1, was -2");
    }

    @Test
    void sameCountsTwiceInOneRequestAreRejected() {
        RateLimitPolicy otherSize = new RateLimitPolicy("burst", 10, 1);

        assertThatIllegalArgumentException()
                .isThrownBy(() -> RateLimitRequest.builder()
                        .add(null, BURST_KEY, BURST, 1, Kind.ACQUIRE)
                        .add(null, new CountKey("burst", null, RateLimitAlgorithm.SLIDING_WINDOW), otherSize, 1, Kind.SHADOW))
                .withMessage("the counts burst appear twice in one request: it would spend from them twice");
    }

    @Test
    void requestKeepsEveryLimitInOrder() {
        Object burstHandle = new Object();
        Object hourlyHandle = new Object();
        CountKey hourlyGold = new CountKey("hourly", "gold", RateLimitAlgorithm.SLIDING_WINDOW);

        RateLimitRequest request = RateLimitRequest.builder()
                .add(burstHandle, BURST_KEY, BURST, 2, Kind.SHADOW)
                .add(hourlyHandle, hourlyGold, HOURLY, 1, Kind.CHARGE)
                .build();

        assertThat(request.size()).isEqualTo(2);
        assertThat(request.handle(0)).isSameAs(burstHandle);
        assertThat(request.handle(1)).isSameAs(hourlyHandle);
        assertThat(request.key(1)).isSameAs(hourlyGold);
        assertThat(request.policy(0)).isSameAs(BURST);
        assertThat(request.cost(0)).isEqualTo(2);
        assertThat(request.kind(0)).isEqualTo(Kind.SHADOW);
        assertThat(request.kind(1)).isEqualTo(Kind.CHARGE);
        assertThat(request).hasToString("RateLimitRequest[\"burst\" 5/1s cost 2 SHADOW, \"hourly\" 500/3600s plan gold CHARGE]");
    }

    @Test
    void lockOrderFollowsTheKeyIdsWhateverTheOrderOfTheLimits() {
        CountKey a = new CountKey("lock-order-a", null, RateLimitAlgorithm.SLIDING_WINDOW);
        CountKey b = new CountKey("lock-order-b", null, RateLimitAlgorithm.SLIDING_WINDOW);
        CountKey c = new CountKey("lock-order-c", null, RateLimitAlgorithm.SLIDING_WINDOW);
        RateLimitPolicy pa = new RateLimitPolicy("lock-order-a", 1, 1);
        RateLimitPolicy pb = new RateLimitPolicy("lock-order-b", 1, 1);
        RateLimitPolicy pc = new RateLimitPolicy("lock-order-c", 1, 1);

        RateLimitRequest cab = RateLimitRequest.builder().add(null, c, pc, 1, Kind.ACQUIRE)
                .add(null, a, pa, 1, Kind.ACQUIRE).add(null, b, pb, 1, Kind.ACQUIRE).build();
        RateLimitRequest bca = RateLimitRequest.builder().add(null, b, pb, 1, Kind.ACQUIRE)
                .add(null, c, pc, 1, Kind.ACQUIRE).add(null, a, pa, 1, Kind.ACQUIRE).build();

        assertThat(ids(cab)).isSorted().containsExactlyInAnyOrder(a.id(), b.id(), c.id());
        assertThat(ids(bca)).containsExactly(ids(cab));
    }

    private static int[] ids(RateLimitRequest request) {
        int[] ids = new int[request.size()];
        for (int k = 0; k < ids.length; k++) {
            ids[k] = request.key(request.lockOrder(k)).id();
        }
        return ids;
    }
}
