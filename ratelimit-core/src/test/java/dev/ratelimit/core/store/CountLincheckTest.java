package dev.ratelimit.core.store;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.testing.ManualClock;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Test;

/**
 * Model checking of the counts' lock-word protocol (Lincheck): the lock-free fast path of
 * {@link Count#tryAcquire} (a compare-and-set of the word, validated like an optimistic read) interleaved
 * with the locked paths (a first spend, a refusal, a request of two limits, of two with one in shadow mode, a charge, a give-back), every
 * interleaving Lincheck's model checker explores must be linearizable: equal to some sequential order of
 * the same operations. The clock stands still during the operations (so that each result depends on the counts
 * alone), a step and a half after the counts were created.
 *
 * <p>One test class per algorithm family: {@link WindowCount} (sliding) with a {@link BucketCount} beside
 * it in the two-limit operation, and the other way round.
 */
class CountLincheckTest {

    /** The state Lincheck drives: one store, two limits of small sizes, one partition. */
    public static class Windows {
        private final InProcessRateLimitStore store;
        private final RateLimitRequest a;
        private final RateLimitRequest b;
        private final RateLimitRequest ab;
        private final RateLimitRequest aCharge;
        private final RateLimitRequest aShadowB;
        private final RateLimitDecision initial;

        public Windows() {
            this(RateLimitAlgorithm.SLIDING_WINDOW, RateLimitAlgorithm.TOKEN_BUCKET);
        }

        Windows(RateLimitAlgorithm first, RateLimitAlgorithm second) {
            ManualClock clock = new ManualClock();
            store = new InProcessRateLimitStore(16, clock);
            RateLimitPolicy pa = new RateLimitPolicy("a", 3, 60, first);
            RateLimitPolicy pb = new RateLimitPolicy("b", 2, 60, second);
            CountKey ka = new CountKey("a", null, first);
            CountKey kb = new CountKey("b", null, second);
            Object ha = store.bind(ka);
            Object hb = store.bind(kb);
            a = RateLimitRequest.of(ha, ka, pa, 1, Kind.ACQUIRE);
            b = RateLimitRequest.of(hb, kb, pb, 1, Kind.ACQUIRE);
            aCharge = RateLimitRequest.of(ha, ka, pa, 1, Kind.CHARGE);
            ab = RateLimitRequest.builder().add(ha, ka, pa, 1, Kind.ACQUIRE).add(hb, kb, pb, 1, Kind.ACQUIRE).build();
            aShadowB = RateLimitRequest.builder().add(ha, ka, pa, 1, Kind.ACQUIRE).add(hb, kb, pb, 1, Kind.SHADOW).build();
            initial = store.decide("p", ab, 1); // so that the fast path has a count in use to race on
            // into the second step of the windows: the first operation rolls them, and giving back the initial
            // permit moves the oldest step, a change of the fields the fast path reads beside the word
            clock.advanceMillis(11_250);
        }

        @Operation
        public String acquireA() {
            return describe(store.decide("p", a, 1));
        }

        @Operation
        public String acquireB() {
            return describe(store.decide("p", b, 1));
        }

        @Operation
        public String acquireBoth() {
            return describe(store.decide("p", ab, 1));
        }

        /** Two limits, one in shadow mode: the store's general path for several limits, beside its two-limit path. */
        @Operation
        public String acquireAShadowB() {
            return describe(store.decide("p", aShadowB, 1));
        }

        @Operation
        public String chargeA() {
            return describe(store.decide("p", aCharge, 1));
        }

        @Operation(runOnce = true)
        public void giveBackInitial() {
            store.giveBack(initial);
        }

        private static String describe(RateLimitDecision decision) {
            StringBuilder s = new StringBuilder();
            for (Outcome o : decision.outcomes()) {
                s.append(o.state()).append(' ').append(o.remaining()).append(' ').append(o.resetNanos()).append(' ')
                        .append(o.retryAfterNanos()).append("; ");
            }
            return s.toString();
        }
    }

    /** The same with a token bucket as the first limit and a strict window as the second. */
    public static class Buckets extends Windows {
        public Buckets() {
            super(RateLimitAlgorithm.TOKEN_BUCKET, RateLimitAlgorithm.STRICT_WINDOW);
        }
    }

    @Test
    void windowCountsAreLinearizable() {
        options().check(Windows.class);
    }

    @Test
    void bucketCountsAreLinearizable() {
        options().check(Buckets.class);
    }

    private static ModelCheckingOptions options() {
        return new ModelCheckingOptions()
                .iterations(20)
                .invocationsPerIteration(200)
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(1)
                .actorsAfter(1);
    }
}
