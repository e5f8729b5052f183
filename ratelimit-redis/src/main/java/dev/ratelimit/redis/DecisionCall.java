package dev.ratelimit.redis;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.redis.transport.ArgumentSink;

/**
 * A decision: one call of the counts script that decides limits of a request whose counts share a slot, the
 * script's acquire ({@code a}) or decide-only ({@code d}); per limit six arguments (code, permit limit, step or
 * interval, permits, longest wait, a receipt to give back first) and six integers of reply (state, permits left, reset,
 * retry-after, receipt, wait), or three when every limit spent at once (permits left, reset, receipt). Two kinds: the whole request at once ({@link Whole}, a decision: the common case,
 * which nothing else wraps) and a part of it ({@link Part}, its outcomes: a request split over two cluster slots,
 * {@link SlotSplit}).
 */
abstract class DecisionCall<T> extends CountsScriptCall<T> {

    private static final long NANOS_PER_MICRO = 1_000L;
    private static final long LONGEST_WAIT_MICROS = 1L << 52;
    private static final State[] STATES = {State.SPENT, State.UNSPENT, State.REFUSED};
    private static final int FIELDS = 6;
    /** The integers per limit of a reply in which every limit spent at once. */
    private static final int SPENT_FIELDS = 3;

    final String partition;
    final RateLimitRequest request;
    final int multiple;
    /** The limits decided, as indices into the request; null: all of them, in order. */
    private final int[] limits;
    private final int n;
    private final long floorMicros;
    /** Outcomes of an earlier call over the same limits whose permits go back first; null: none. */
    private final Outcome[] giveBack;

    DecisionCall(RedisRateLimitStore store, String partition, RateLimitRequest request, int multiple, int[] limits,
               long floorNanos, boolean spend, Outcome[] giveBack) {
        super(store, spend ? ACQUIRE : DECIDE, FIELDS * (limits == null ? request.size() : limits.length));
        this.partition = partition;
        this.request = request;
        this.multiple = multiple;
        this.limits = limits;
        this.n = limits == null ? request.size() : limits.length;
        this.floorMicros = floorNanos / NANOS_PER_MICRO;
        this.giveBack = giveBack;
    }

    private int limit(int k) {
        return limits == null ? k : limits[k];
    }

    @Override
    public final int keys() {
        return n;
    }

    @Override
    public final void writeKey(int k, ArgumentSink sink) {
        int i = limit(k);
        sink.key(store.prefix(), request.key(i).partition(partition), BoundCountKey.of(request, i).suffix);
    }

    @Override
    final int body() {
        return 1 + FIELDS * n;
    }

    @Override
    final void writeBody(int j, ArgumentSink sink) {
        if (j == 0) {
            sink.number(floorMicros);
            return;
        }
        int k = (j - 1) / FIELDS;
        int i = limit(k);
        switch ((j - 1) % FIELDS) {
            case 0 -> sink.bytes(BoundCountKey.of(request, i).code(request.kind(i), request.tag(i), request.policy(i)));
            case 1 -> sink.number(BoundCountKey.of(request, i).arguments(request.policy(i)).limit);
            case 2 -> sink.number(BoundCountKey.of(request, i).arguments(request.policy(i)).size);
            case 3 -> sink.number((long) request.cost(i) * multiple);
            // rounded down to whole microseconds: grants fall on whole microseconds, so none is lost; a double holds
            // them exactly up to 2^53, and a wait of 2^52 (142 years) is as good as any longer one
            case 4 -> sink.number(Math.min(request.maxWaitNanos(i) / NANOS_PER_MICRO, LONGEST_WAIT_MICROS));
            default -> {
                if (giveBack == null || giveBack[k].receipt() == RateLimitDecision.NO_RECEIPT) {
                    sink.bytes(EMPTY);
                } else {
                    sink.number(store.micros(giveBack[k].receipt()));
                }
            }
        }
    }

    /**
     * The outcomes the reply holds, in the order of the limits decided: six integers per limit, or three (permits left,
     * reset, receipt) when every limit spent at once, the common call, whose other three are known.
     */
    final Outcome[] outcomes(long[] reply, int count) {
        Outcome[] outcomes = new Outcome[n];
        if (count == SPENT_FIELDS * n) {
            for (int k = 0; k < n; k++) {
                int at = SPENT_FIELDS * k;
                outcomes[k] = outcome(k, State.SPENT, reply[at], reply[at + 1], 0, reply[at + 2], 0);
            }
            return outcomes;
        }
        if (count != FIELDS * n) {
            throw unexpected(reply, count);
        }
        for (int k = 0; k < n; k++) {
            int at = FIELDS * k;
            long state = reply[at];
            if (state < 0 || state >= STATES.length) {
                throw unexpected(reply, count);
            }
            outcomes[k] = outcome(k, STATES[(int) state], reply[at + 1], reply[at + 2], reply[at + 3], reply[at + 4],
                    reply[at + 5]);
        }
        return outcomes;
    }

    /** Limit {@code k}'s outcome from the script's integers (times in microseconds; -1: no reset, no receipt). */
    private Outcome outcome(int k, State state, long left, long reset, long retry, long receipt, long wait) {
        return new Outcome(request.policy(limit(k)), state, (int) left, reset < 0 ? -1 : reset * NANOS_PER_MICRO,
                retry * NANOS_PER_MICRO, receipt < 0 ? RateLimitDecision.NO_RECEIPT : store.receipt(receipt),
                wait * NANOS_PER_MICRO);
    }

    /** The whole request, decided and spent in one call: completes with the decision. */
    static final class Whole extends DecisionCall<RateLimitDecision> {
        Whole(RedisRateLimitStore store, String partition, RateLimitRequest request, int multiple) {
            super(store, partition, request, multiple, null, 0, true, null);
        }

        @Override
        RateLimitDecision decode(long[] reply, int count) {
            return RateLimitDecision.ofArray(partition, request, multiple, outcomes(reply, count));
        }
    }

    /** Some limits of a request: completes with their outcomes. */
    static final class Part extends DecisionCall<Outcome[]> {
        Part(RedisRateLimitStore store, String partition, RateLimitRequest request, int multiple, int[] limits,
             long floorNanos, boolean spend, Outcome[] giveBack) {
            super(store, partition, request, multiple, limits, floorNanos, spend, giveBack);
        }

        @Override
        Outcome[] decode(long[] reply, int count) {
            return outcomes(reply, count);
        }
    }
}
