package dev.ratelimit.core.store;

import dev.ratelimit.core.CountState;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import java.util.Arrays;
import java.util.Objects;

/**
 * One call on one count that a store keeps as bytes: the arithmetic of the in-process store (its window and bucket
 * counts, the same code), for a store that keeps counts elsewhere and can update one key atomically: a map's
 * {@code compute}, a grid's entry processor, a compare-and-set loop. The store reads the count's stored bytes (null:
 * none), calls {@link #apply} with its clock's reading, writes back what {@link Applied} says, and hands the
 * {@link Reply} to the caller; {@link CountSequence} decides a whole request of several limits that way, one count at
 * a time. Between processes a call travels as {@link #toLongs()} and a reply as {@link Reply#toLongs()}, arrays of
 * longs that every grid carries without the library's classes; the stored bytes, too, need no class of the library
 * where they are kept.
 *
 * <p>A call of one limit {@code i} of a request ({@link #acquire}, {@link #decide}, {@link #inspect}) carries that
 * limit's size and sizing tag: a count that holds nothing, or was sized by another tag, is sized by it, as in the
 * in-process store. Time: {@code now} is a reading of a clock in nanoseconds that every caller of the count shares
 * (the clock of the member that owns it, or one the store's instances agree on); a reading earlier than one the count
 * has seen is taken as that one. Immutable; {@link #apply} is thread-safe (it works on the bytes it is given alone).
 *
 * @param op            what the call does
 * @param algorithm     the limit's algorithm; null for {@link Op#RELEASE} and {@link Op#RESTART}
 * @param kind          the limit's kind ({@link RateLimitRequest#kind}); null for {@link Op#RELEASE} and
 *                      {@link Op#RESTART}
 * @param tag           the request's sizing tag ({@link RateLimitRequest#tag})
 * @param windowSeconds the limit's window, seconds (0 for {@link Op#RELEASE}, {@link Op#RESTART})
 * @param permitLimit   the limit's permit limit (0 for {@link Op#RELEASE}, {@link Op#RESTART})
 * @param permits       permits to spend, or to give back, {@code >= 0}
 * @param maxWaitNanos  the longest the call may wait for its permits, nanoseconds (0: it may not)
 * @param floorNanos    nanoseconds from now before which the call does not go (another limit of the request waits
 *                      that long), {@code >= 0}
 * @param receipt       {@link Op#RELEASE}: the receipt of the permits given back; {@link Op#ACQUIRE},
 *                      {@link Op#DECIDE}: permits of an earlier call of the same request given back first (to move
 *                      them), or {@link RateLimitDecision#NO_RECEIPT}
 */
public record CountCall(Op op, RateLimitAlgorithm algorithm, Kind kind, int tag, int windowSeconds, int permitLimit,
                        long permits, long maxWaitNanos, long floorNanos, long receipt) {

    /** What a call does to a count. */
    public enum Op {
        /** Decides a limit, and spends its permits when it allows the request (at a later instant: a reservation). */
        ACQUIRE,
        /** Decides a limit as {@link #ACQUIRE} does, spending nothing: a request that another limit refuses. */
        DECIDE,
        /** Gives back {@code permits} spent with {@code receipt}, unless they have returned already. */
        RELEASE,
        /** Reads the count as a request of the limit would find it, spending nothing. */
        INSPECT,
        /** Forgets the count: the next request finds none. */
        RESTART
    }

    /** How many longs {@link #toLongs()} makes. */
    public static final int LONGS = 10;
    private static final Op[] OPS = Op.values();
    private static final Kind[] KINDS = Kind.values();
    private static final RateLimitAlgorithm[] ALGORITHMS = RateLimitAlgorithm.values();

    /** @throws IllegalArgumentException naming the component when one is out of range */
    public CountCall {
        Objects.requireNonNull(op, "op");
        if (sized(op)) {
            // the policy's own checks, naming what is wrong
            new RateLimitPolicy(NAME, permitLimit, windowSeconds, Objects.requireNonNull(algorithm, "algorithm"));
            Objects.requireNonNull(kind, "kind");
        }
        if (permits < 0 || maxWaitNanos < 0 || floorNanos < 0) {
            throw new IllegalArgumentException("permits, maxWaitNanos and floorNanos must be >= 0, were " + permits + ", "
                    + maxWaitNanos + ", " + floorNanos);
        }
    }

    /** How the policy of a call is named where the call runs: the arithmetic needs its size only. */
    private static final String NAME = "count";

    /**
     * Limit {@code i} of {@code request}: decide it and spend {@code request.cost(i) * multiple} permits if it allows,
     * no earlier than {@code floorNanos} from now, after giving back the permits of {@code giveBack} (or
     * {@link RateLimitDecision#NO_RECEIPT}).
     */
    public static CountCall acquire(RateLimitRequest request, int i, int multiple, long floorNanos, long giveBack) {
        return limit(Op.ACQUIRE, request, i, multiple, floorNanos, giveBack);
    }

    /** {@link #acquire} spending nothing: what limit {@code i} would answer. */
    public static CountCall decide(RateLimitRequest request, int i, int multiple, long giveBack) {
        return limit(Op.DECIDE, request, i, multiple, 0, giveBack);
    }

    /** Gives back {@code permits} spent with {@code receipt} ({@link Outcome#receipt}). */
    public static CountCall release(long receipt, long permits) {
        return new CountCall(Op.RELEASE, null, null, 0, 0, 0, permits, 0, 0, receipt);
    }

    /** Reads the count of the request's first limit as the request would find it ({@link Reply#countState}). */
    public static CountCall inspect(RateLimitRequest request) {
        RateLimitPolicy policy = request.policy(0);
        return new CountCall(Op.INSPECT, policy.algorithm(), Kind.ACQUIRE, request.tag(0), policy.windowSeconds(),
                policy.permitLimit(), 1, 0, 0, RateLimitDecision.NO_RECEIPT);
    }

    /** Forgets the count ({@link Reply#announce}: it had refused since it was last announced). */
    public static CountCall restart() {
        return new CountCall(Op.RESTART, null, null, 0, 0, 0, 0, 0, 0, RateLimitDecision.NO_RECEIPT);
    }

    private static CountCall limit(Op op, RateLimitRequest request, int i, int multiple, long floorNanos, long giveBack) {
        RateLimitPolicy policy = request.policy(i);
        return new CountCall(op, policy.algorithm(), request.kind(i), request.tag(i), policy.windowSeconds(),
                policy.permitLimit(), (long) request.cost(i) * multiple, request.maxWaitNanos(i), floorNanos, giveBack);
    }

    private static boolean sized(Op op) {
        return op == Op.ACQUIRE || op == Op.DECIDE || op == Op.INSPECT;
    }

    /** The call as {@value #LONGS} longs, in the order of the components (enums by ordinal, -1 for null). */
    public long[] toLongs() {
        return new long[] {op.ordinal(), algorithm == null ? -1 : algorithm.ordinal(), kind == null ? -1 : kind.ordinal(),
                tag, windowSeconds, permitLimit, permits, maxWaitNanos, floorNanos, receipt};
    }

    /**
     * The call that {@link #toLongs()} made (by the same version of the library).
     *
     * @throws IllegalArgumentException for anything else
     */
    public static CountCall ofLongs(long[] longs) {
        if (longs == null || longs.length != LONGS || longs[0] < 0 || longs[0] >= OPS.length
                || longs[1] < -1 || longs[1] >= ALGORITHMS.length || longs[2] < -1 || longs[2] >= KINDS.length) {
            throw new IllegalArgumentException("ratelimit: not the longs of a count call");
        }
        return new CountCall(OPS[(int) longs[0]], longs[1] < 0 ? null : ALGORITHMS[(int) longs[1]],
                longs[2] < 0 ? null : KINDS[(int) longs[2]], (int) longs[3], (int) longs[4], (int) longs[5], longs[6],
                longs[7], longs[8], longs[9]);
    }

    /**
     * Runs the call on a count's stored bytes at {@code now}.
     *
     * @param stored the bytes the store holds for the count; null when it holds none. Bytes that are no count (another
     *               version's, garbage) are taken as none
     * @param now    the clock's reading, nanoseconds (see the class comment)
     * @return what to write back, and the reply
     */
    public Applied apply(byte[] stored, long now) {
        Count count = StoredCount.read(stored);
        int flags = count == null ? 0 : StoredCount.flags(stored);
        return switch (op) {
            case RESTART -> new Applied(stored != null, null, Reply.announcing((flags & StoredCount.REFUSED) != 0));
            case RELEASE -> release(count, flags, now);
            default -> decide(count, flags, now);
        };
    }

    private Applied release(Count count, int flags, long now) {
        if (count == null) {
            return Applied.NOTHING;
        }
        count.lock(); // seen by no other thread: the lock is the count's methods' precondition, taken at once
        long at = count.notBefore(now);
        if (!givesBack(count, at)) {
            return Applied.NOTHING;
        }
        boolean announce = (flags & StoredCount.REFUSED) != 0; // the caller it refused may come in now
        return new Applied(true, StoredCount.write(count, at, flags & ~StoredCount.REFUSED), Reply.announcing(announce));
    }

    /** Gives back {@code permits} of {@code receipt} to a locked count at {@code at}: true when any came back. */
    private boolean givesBack(Count count, long at) {
        count.idle(at); // moved to now first: what returned by itself meanwhile is not this give-back's
        byte[] before = StoredCount.write(count, at, 0);
        count.giveBack(at, receipt, permits);
        return !Arrays.equals(before, StoredCount.write(count, at, 0));
    }

    /** {@link Op#ACQUIRE}, {@link Op#DECIDE}, {@link Op#INSPECT}: as the in-process store decides one locked count. */
    private Applied decide(Count count, int flags, long now) {
        RateLimitPolicy policy = new RateLimitPolicy(NAME, permitLimit, windowSeconds, algorithm);
        boolean changed = false;
        long at = now;
        if (count != null) {
            count.lock();
            at = count.notBefore(now);
            if (receipt != RateLimitDecision.NO_RECEIPT && givesBack(count, at)) {
                changed = true; // given back to the count as it was sized, which issued the receipt
            }
        } else {
            count = CountTable.newCount(at, policy, tag);
            count.lock();
        }
        for (Count next; (next = CountTable.sizedFor(count, policy, tag, at)) != count; ) {
            count = next;
            count.lock();
        }
        if (op == Op.INSPECT) {
            return new Applied(false, null, new Reply(State.UNSPENT, count.remaining(at), count.resetNanos(at), 0,
                    RateLimitDecision.NO_RECEIPT, 0, count.debt(at), false));
        }
        boolean announce = changed && (flags & StoredCount.REFUSED) != 0;
        if (announce) {
            flags &= ~StoredCount.REFUSED;
        }
        // CountDecisions.decideLocked for one count, with the instant the request goes no earlier than the floor
        boolean all = op == Op.ACQUIRE;
        long goAt = now + floorNanos;
        if (kind == Kind.ACQUIRE && maxWaitNanos == 0) {
            all &= count.has(at, permits);
        } else if (kind == Kind.ACQUIRE) {
            long grant = count.grantAt(at, permits);
            all &= grant - at <= maxWaitNanos;
            goAt = grant - goAt > 0 ? grant : goAt;
        }
        Outcome outcome;
        if (all && kind == Kind.ACQUIRE && goAt - now > 0) {
            outcome = CountDecisions.reserved(count, policy, at, goAt - at > 0 ? goAt : at, permits, goAt - now);
        } else if (all && (kind == Kind.CHARGE || count.has(at, permits))) {
            outcome = CountDecisions.spent(count, policy, at, permits);
        } else if (kind == Kind.CHARGE || count.has(at, permits)
                || (kind == Kind.ACQUIRE && maxWaitNanos > 0 && count.grantAt(at, permits) - at <= maxWaitNanos)) {
            outcome = CountDecisions.unspent(count, policy, at);
        } else {
            outcome = CountDecisions.refused(count, policy, at, permits);
            if (kind == Kind.ACQUIRE && (flags & StoredCount.REFUSED) == 0) {
                flags |= StoredCount.REFUSED; // a give-back or a restart of this count is to be announced
                changed = true;
            }
        }
        Reply reply = new Reply(outcome.state(), outcome.remaining(), outcome.resetNanos(), outcome.retryAfterNanos(),
                outcome.receipt(), outcome.waitNanos(), 0, announce);
        boolean write = outcome.state() == State.SPENT || changed;
        return new Applied(write, write ? StoredCount.write(count, at, flags) : null, reply);
    }

    /**
     * What {@link #apply} did.
     *
     * @param write  false when the stored bytes stay as they were; true to replace them with {@code stored}
     * @param stored the count's new bytes when {@code write}; null to remove the count (it holds nothing)
     * @param reply  the answer to the caller
     */
    public record Applied(boolean write, byte[] stored, Reply reply) {

        static final Applied NOTHING = new Applied(false, null, Reply.announcing(false));
    }

    /**
     * A call's answer. {@link Op#ACQUIRE}, {@link Op#DECIDE}: the limit's {@link Outcome} ({@link #outcome});
     * {@link Op#INSPECT}: {@code remaining}, {@code resetNanos}, {@code debt} ({@link #countState}); {@link Op#RELEASE},
     * {@link Op#RESTART}: {@code announce} alone.
     *
     * @param state           the limit's state: {@code SPENT}, {@code UNSPENT} or {@code REFUSED}
     * @param remaining       whole permits left, {@code >= 0}
     * @param resetNanos      nanoseconds until the oldest permit returns (a window) or the bucket is full; -1 when
     *                        nothing is spent
     * @param retryAfterNanos when refused, nanoseconds until the request could be allowed; else 0
     * @param receipt         when spent, what gives the permits back ({@link #release}); else
     *                        {@link RateLimitDecision#NO_RECEIPT}
     * @param waitNanos       when spent by a reservation, nanoseconds until the call goes; else 0
     * @param debt            {@link Op#INSPECT}: permits spent past the limit; else 0
     * @param announce        true when the count had refused since it was last announced and may now have gained
     *                        permits (a give-back, a restart): a store that announces tells every instance
     *                        ({@code RateLimitStore.CountListener#gained})
     */
    public record Reply(State state, int remaining, long resetNanos, long retryAfterNanos, long receipt,
                        long waitNanos, long debt, boolean announce) {

        /** How many longs {@link #toLongs()} makes. */
        public static final int LONGS = 8;
        private static final State[] STATES = State.values();

        static Reply announcing(boolean announce) {
            return new Reply(State.UNSPENT, 0, -1, 0, RateLimitDecision.NO_RECEIPT, 0, 0, announce);
        }

        /** The limit's outcome under {@code policy}, the policy of the limit the call was made for. */
        public Outcome outcome(RateLimitPolicy policy) {
            return new Outcome(policy, state, remaining, resetNanos, retryAfterNanos, receipt, waitNanos);
        }

        /** The count as {@link Op#INSPECT} found it, under {@code policy}. */
        public CountState countState(RateLimitPolicy policy) {
            return new CountState(policy, remaining, resetNanos, debt);
        }

        /** The reply as {@value #LONGS} longs, in the order of the components. */
        public long[] toLongs() {
            return new long[] {state.ordinal(), remaining, resetNanos, retryAfterNanos, receipt, waitNanos, debt,
                    announce ? 1 : 0};
        }

        /** @throws IllegalArgumentException when {@code longs} are not what {@link #toLongs()} makes */
        public static Reply ofLongs(long[] longs) {
            if (longs == null || longs.length != LONGS || longs[0] < 0 || longs[0] >= STATES.length) {
                throw new IllegalArgumentException("ratelimit: not the longs of a count reply");
            }
            return new Reply(STATES[(int) longs[0]], (int) longs[1], longs[2], longs[3], longs[4], longs[5], longs[6],
                    longs[7] != 0);
        }
    }
}
