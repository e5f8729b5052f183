package dev.ratelimit.jcache;

import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.jcache.internal.CountCall;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Decides a request on its counts, blocking until the grid answered: one call per limit; a request of several limits
 * one count at a time in one fixed order, the permits the others took given back when one refuses, and limits that
 * wait brought to one instant (see the class comment of {@link JCacheRateLimitStore}). Thread-safe: immutable; a
 * {@code Sequence} lives for one request, on one thread.
 */
final class CountDecisions {

    /** How often the parts of a request may move to a later instant before it gives up: in practice once at most. */
    static final int MOST_MOVES = 8;
    static final long NANOS_PER_MICRO = 1_000L;
    private static final long MICROS_PER_STEP_SECOND = 125_000L;
    private static final State[] STATES = {State.SPENT, State.UNSPENT, State.REFUSED};

    private final GridCalls calls;
    private final CacheExpiry expiry;
    /** The time a call takes: the test clock in microseconds, or {@link CountCall#OWNERS_CLOCK}. */
    private final LongSupplier now;
    /** Hears the key of a count whose give-back may let a caller in that it refused. */
    private final Consumer<String> announce;

    CountDecisions(GridCalls calls, CacheExpiry expiry, LongSupplier now, Consumer<String> announce) {
        this.calls = calls;
        this.expiry = expiry;
        this.now = now;
        this.announce = announce;
    }

    /** Decides on the calling thread, blocking until the grid answered. */
    RateLimitDecision decide(String partition, RateLimitRequest request, int multiple) {
        expiry.check(request);
        if (request.size() == 1) {
            Outcome o = call(Bound.key(partition, request, 0), request, multiple, 0, true, 0, RateLimitDecision.NO_RECEIPT);
            return RateLimitDecision.of(partition, request, multiple, o);
        }
        return new Sequence(partition, request, multiple).decide();
    }

    /**
     * One request of several limits, one count at a time: see the class comment. Waiting limits first, as they
     * set the instant the others go; then the others, each in the order of its key's id.
     */
    private final class Sequence {
        private final String partition;
        private final RateLimitRequest request;
        private final int multiple;
        private final int n;
        private final int[] order;
        private final String[] keys;
        private final Outcome[] outcomes;
        private long floor; // microseconds from now when the call goes
        private int moves;

        Sequence(String partition, RateLimitRequest request, int multiple) {
            this.partition = partition;
            this.request = request;
            this.multiple = multiple;
            this.n = request.size();
            this.keys = new String[n];
            this.outcomes = new Outcome[n];
            this.order = new int[n];
            int k = 0;
            for (int pass = 0; pass < 2; pass++) {
                for (int x = 0; x < n; x++) {
                    int i = request.lockOrder(x);
                    boolean waits = request.kind(i) == Kind.ACQUIRE && request.maxWaitNanos(i) > 0;
                    if (waits == (pass == 0)) {
                        order[k++] = i;
                    }
                }
            }
        }

        RateLimitDecision decide() {
            for (int k = 0; k < n; k++) {
                int i = order[k];
                keys[i] = Bound.key(partition, request, i);
                Outcome o = call(keys[i], request, multiple, i, true, floor, RateLimitDecision.NO_RECEIPT);
                outcomes[i] = o;
                if (refuses(i, o)) {
                    return refused(k + 1);
                }
                if (!settle(k)) {
                    return refused(k + 1);
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
                        floor = Math.max(floor, outcomes[i].waitNanos() / NANOS_PER_MICRO);
                    }
                }
                for (int k = 0; k <= last; k++) {
                    int i = order[k];
                    Outcome o = outcomes[i];
                    if (request.kind(i) != Kind.ACQUIRE || !o.spent() || o.waitNanos() / NANOS_PER_MICRO == floor) {
                        continue;
                    }
                    if (++moves > MOST_MOVES) {
                        giveUp(last);
                        return false;
                    }
                    Outcome again = call(keys[i], request, multiple, i, true, floor, o.receipt());
                    outcomes[i] = again;
                    if (refuses(i, again)) {
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
        private RateLimitDecision refused(int decided) {
            for (int k = 0; k < n; k++) {
                int i = order[k];
                if (k >= decided) {
                    keys[i] = Bound.key(partition, request, i);
                    outcomes[i] = call(keys[i], request, multiple, i, false, 0, RateLimitDecision.NO_RECEIPT);
                } else if (outcomes[i].spent()) {
                    outcomes[i] = call(keys[i], request, multiple, i, false, 0, outcomes[i].receipt());
                }
            }
            return RateLimitDecision.ofArray(partition, request, multiple, outcomes);
        }

        /**
         * Others kept reserving between the calls: the waiting limits refuse, saying when the request would have
         * gone (then {@link #refused} gives everything back).
         */
        private void giveUp(int last) {
            for (int k = 0; k <= last; k++) {
                int i = order[k];
                if (outcomes[i].spent()) {
                    outcomes[i] = call(keys[i], request, multiple, i, false, 0, outcomes[i].receipt());
                }
            }
            for (int k = 0; k <= last; k++) {
                int i = order[k];
                if (request.kind(i) == Kind.ACQUIRE && request.maxWaitNanos(i) > 0 && outcomes[i].state() == State.UNSPENT) {
                    Outcome o = outcomes[i];
                    outcomes[i] = new Outcome(o.policy(), State.REFUSED, 0, o.resetNanos(), floor * NANOS_PER_MICRO,
                            RateLimitDecision.NO_RECEIPT);
                }
            }
        }

        private boolean refuses(int i, Outcome o) {
            return o.state() == State.REFUSED && request.kind(i) == Kind.ACQUIRE;
        }
    }

    /** One limit of a request: one call to its count. */
    private Outcome call(String key, RateLimitRequest request, int multiple, int i, boolean spend, long floorMicros,
                         long giveBack) {
        RateLimitPolicy policy = request.policy(i);
        long permits = (long) request.cost(i) * multiple;
        long[] reply = calls.run(key, CountCall.decide(spend, algorithm(policy), kind(request.kind(i)), request.tag(i),
                policy.windowSeconds(), policy.permitLimit(), size(policy), permits,
                request.maxWaitNanos(i) / NANOS_PER_MICRO, floorMicros, giveBack, now.getAsLong()));
        if (reply[6] != 0) {
            announce.accept(key);
        }
        long reset = reply[2];
        return new Outcome(policy, STATES[(int) reply[0]], (int) reply[1], reset < 0 ? -1 : reset * NANOS_PER_MICRO,
                reply[3] * NANOS_PER_MICRO, reply[4] == CountCall.NO_RECEIPT ? RateLimitDecision.NO_RECEIPT : reply[4],
                reply[5] * NANOS_PER_MICRO);
    }

    static byte algorithm(RateLimitPolicy policy) {
        return switch (policy.algorithm()) {
            case SLIDING_WINDOW -> CountCall.SLIDING;
            case STRICT_WINDOW -> CountCall.STRICT;
            case TOKEN_BUCKET -> CountCall.BUCKET;
        };
    }

    private static byte kind(Kind kind) {
        return switch (kind) {
            case ACQUIRE -> CountCall.KIND_ACQUIRE;
            case SHADOW -> CountCall.KIND_SHADOW;
            case CHARGE -> CountCall.KIND_CHARGE;
        };
    }

    /** The step of a window (an eighth), or a bucket's interval ({@code ceil(window / limit)}), in microseconds. */
    static long size(RateLimitPolicy policy) {
        return policy.algorithm() == RateLimitAlgorithm.TOKEN_BUCKET
                ? (policy.windowSeconds() * 1_000_000L + policy.permitLimit() - 1) / policy.permitLimit()
                : policy.windowSeconds() * MICROS_PER_STEP_SECOND;
    }
}
