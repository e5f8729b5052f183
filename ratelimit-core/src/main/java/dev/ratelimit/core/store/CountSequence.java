package dev.ratelimit.core.store;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;

/**
 * A request decided over counts that a store can update only one at a time, each atomically ({@link CountCall}):
 * a key-value store without transactions over several keys, such as a data grid. A request of one limit is one call, as
 * exact as the in-process store. A request of several: one call per limit, in one fixed order (limits that wait
 * first, as they set the instant the others go; then the others, each in the order of its key's id,
 * {@link RateLimitRequest#lockOrder}); when one refuses, the permits the others took are given back before the request
 * is answered, and limits that wait go together at the latest instant (the others' permits move there). Never more is
 * admitted than a limit allows, but a concurrent request may briefly see a permit taken that is then given back, and
 * be refused by it.
 *
 * <p>Stateless; the methods block until the store's calls have answered.
 */
public final class CountSequence {

    /** How often the parts of a request may move to a later instant before it gives up: in practice once at most. */
    public static final int MOST_MOVES = 8;

    /** A store's calls on the counts of one request. */
    @FunctionalInterface
    public interface Counts {

        /**
         * Runs {@code call} ({@link CountCall#apply}) on the count of limit {@code limit} of the request (in the
         * partition being decided), atomically for that count, and answers its reply; the store announces it when the
         * reply says so.
         */
        CountCall.Reply run(int limit, CountCall call);
    }

    private CountSequence() {
    }

    /**
     * Decides {@code request} for {@code partition} (the store's {@code acquire}), spending
     * {@code request.cost(i) * multiple} from each limit {@code i} when all allow.
     *
     * @throws IllegalArgumentException when {@code multiple < 1}
     */
    public static RateLimitDecision decide(String partition, RateLimitRequest request, int multiple, Counts counts) {
        if (multiple < 1) {
            throw new IllegalArgumentException("multiple must be >= 1, was " + multiple);
        }
        if (request.size() == 1) {
            Outcome o = counts.run(0, CountCall.acquire(request, 0, multiple, 0, RateLimitDecision.NO_RECEIPT))
                    .outcome(request.policy(0));
            return RateLimitDecision.of(partition, request, multiple, o);
        }
        return new Sequence(request, multiple, counts).decide(partition);
    }

    /** Gives back every permit {@code decision} spent ({@link #givesBack}), limit by limit (the store's {@code release}). */
    public static void release(RateLimitDecision decision, Counts counts) {
        for (int i = 0; i < decision.size(); i++) {
            if (givesBack(decision, i)) {
                counts.run(i, CountCall.release(decision.outcome(i).receipt(), decision.permits(i)));
            }
        }
    }

    /**
     * Gives back {@code multiple} of the decision's multiple ({@code request.cost(i) * multiple} permits from each limit
     * {@link #givesBack} names), limit by limit: the store's {@code release(decision, multiple)}, a slice's unused part.
     *
     * @throws IllegalArgumentException when {@code multiple} is not within {@code 1 .. decision.multiple()}
     */
    public static void release(RateLimitDecision decision, int multiple, Counts counts) {
        if (multiple < 1 || multiple > decision.multiple()) {
            throw new IllegalArgumentException("multiple must be within 1 .. " + decision.multiple() + ", was " + multiple);
        }
        for (int i = 0; i < decision.size(); i++) {
            if (givesBack(decision, i)) {
                counts.run(i, CountCall.release(decision.outcome(i).receipt(), (long) decision.request().cost(i) * multiple));
            }
        }
    }

    /** True when limit {@code i} of {@code decision} spent permits that a release gives back (a charge keeps them). */
    public static boolean givesBack(RateLimitDecision decision, int i) {
        Outcome outcome = decision.outcome(i);
        return outcome.state() == State.SPENT && decision.request().kind(i) != Kind.CHARGE
                && outcome.receipt() != RateLimitDecision.NO_RECEIPT;
    }

    /** One request of several limits; lives for one decision, on one thread. */
    private static final class Sequence {
        private final RateLimitRequest request;
        private final int multiple;
        private final Counts counts;
        private final int n;
        private final int[] order;
        private final Outcome[] outcomes;
        private long floor; // nanoseconds from now when the call goes
        private int moves;

        Sequence(RateLimitRequest request, int multiple, Counts counts) {
            this.request = request;
            this.multiple = multiple;
            this.counts = counts;
            this.n = request.size();
            this.outcomes = new Outcome[n];
            this.order = new int[n];
            int k = 0;
            for (int pass = 0; pass < 2; pass++) {
                for (int x = 0; x < n; x++) {
                    int i = request.lockOrder(x);
                    if (waits(i) == (pass == 0)) {
                        order[k++] = i;
                    }
                }
            }
        }

        RateLimitDecision decide(String partition) {
            for (int k = 0; k < n; k++) {
                int i = order[k];
                outcomes[i] = call(CountCall.acquire(request, i, multiple, floor, RateLimitDecision.NO_RECEIPT), i);
                if (refuses(i, outcomes[i]) || !settle(k)) {
                    refused(k + 1);
                    break;
                }
            }
            return RateLimitDecision.ofArray(partition, request, multiple, outcomes);
        }

        /**
         * Brings the enforced limits decided so far (up to {@code order[last]}) to one instant: a limit that goes
         * later than the others moves their permits to its instant, and so on until all agree.
         *
         * @return false when one of them cannot go at the later instant (it refused, giving its permits back)
         */
        private boolean settle(int last) {
            boolean moved = true;
            while (moved) {
                moved = false;
                for (int k = 0; k <= last; k++) {
                    int i = order[k];
                    if (request.kind(i) == Kind.ACQUIRE && outcomes[i].spent()) {
                        floor = Math.max(floor, outcomes[i].waitNanos());
                    }
                }
                for (int k = 0; k <= last; k++) {
                    int i = order[k];
                    Outcome o = outcomes[i];
                    if (request.kind(i) != Kind.ACQUIRE || !o.spent() || o.waitNanos() == floor) {
                        continue;
                    }
                    if (++moves > MOST_MOVES) {
                        giveUp(last);
                        return false;
                    }
                    outcomes[i] = call(CountCall.acquire(request, i, multiple, floor, o.receipt()), i);
                    if (refuses(i, outcomes[i])) {
                        return false;
                    }
                    moved = true;
                }
            }
            return true;
        }

        /**
         * The request is refused: what the limits decided so far spent goes back (each reporting what a refused
         * request finds), and the limits not yet decided are decided without spending.
         */
        private void refused(int decided) {
            for (int k = 0; k < n; k++) {
                int i = order[k];
                if (k >= decided) {
                    outcomes[i] = call(CountCall.decide(request, i, multiple, RateLimitDecision.NO_RECEIPT), i);
                } else if (outcomes[i].spent()) {
                    outcomes[i] = call(CountCall.decide(request, i, multiple, outcomes[i].receipt()), i);
                }
            }
        }

        /**
         * Others kept reserving between the calls: the waiting limits refuse, saying when the request would have
         * gone (then {@link #refused} gives everything back).
         */
        private void giveUp(int last) {
            for (int k = 0; k <= last; k++) {
                int i = order[k];
                if (outcomes[i].spent()) {
                    outcomes[i] = call(CountCall.decide(request, i, multiple, outcomes[i].receipt()), i);
                }
            }
            for (int k = 0; k <= last; k++) {
                int i = order[k];
                if (waits(i) && outcomes[i].state() == State.UNSPENT) {
                    Outcome o = outcomes[i];
                    outcomes[i] = new Outcome(o.policy(), State.REFUSED, 0, o.resetNanos(), floor,
                            RateLimitDecision.NO_RECEIPT);
                }
            }
        }

        private Outcome call(CountCall call, int i) {
            return counts.run(i, call).outcome(request.policy(i));
        }

        private boolean waits(int i) {
            return request.kind(i) == Kind.ACQUIRE && request.maxWaitNanos(i) > 0;
        }

        private boolean refuses(int i, Outcome o) {
            return o.state() == State.REFUSED && request.kind(i) == Kind.ACQUIRE;
        }
    }
}
