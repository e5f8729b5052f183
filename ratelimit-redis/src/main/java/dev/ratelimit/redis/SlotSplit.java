package dev.ratelimit.redis;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.redis.internal.RedisKeys;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One request decided on Redis Cluster whose counts lie in two slots: counts per application (all under the tag
 * {@link RedisKeys#APPLICATION_TAG}) beside counts per caller (the partition's tag). A script touches one slot, so
 * each part is one script call, sequenced so that the request is still all or nothing and goes at one instant:
 * <ol>
 *   <li>the first part is decided and spent. Refused: the second part is only decided (its outcomes; nothing
 *       spent), and so is the request;</li>
 *   <li>the second part is spent no sooner than the first part's instant (the script's floor). Refused: the
 *       first part's permits go back, in a call that reports its outcomes as a refused request's, and the
 *       request is refused;</li>
 *   <li>when the second part goes later than the first (a limit of it waits longer), the first part's
 *       permits move to that instant: given back and spent again there, in one call; and so on, in turn, until
 *       both go at the same instant. It takes one move unless others reserve in between. After
 *       {@code mostMoves} moves both parts are given back and the request is refused, its waiting limits saying
 *       when it could go.</li>
 * </ol>
 * The part likely to go later is decided first, so that the other seldom moves it: the part with limits that wait
 * (the per-application part if both have some: its count is every caller's, its queue the longer). Without
 * limits that wait, nothing ever moves, and the caller's part goes first, so that a caller refused by its own
 * limits never writes to the count every caller shares.
 *
 * <p>What one script guarantees, this does not quite: between the calls other requests see the first part
 * spent (a request refused in the end may have refused another meanwhile, as in process a request does that
 * gives its permits back after a later refusal), and each part takes the time of its own node, so that the
 * "same instant" is so to the clock skew between two nodes. When a call fails, the other part gives back what
 * it spent as the request fails.
 *
 * <p>Its give-back ({@link #giveBack}) is one call per slot, each giving back the permits spent there.
 *
 * <p>This is all the store knows of slots: which requests span two ({@link #oneSlot}), and how one that does is
 * decided and given back; a request whose counts share a slot is one call, the store's own.
 *
 * <p>One per request; its stages run one after another, each on the thread that completed the one before.
 */
final class SlotSplit {

    /** How often the parts may move before the request gives up: in practice once at most. */
    static final int MOST_MOVES = 8;

    private final RedisRateLimitStore store;
    private final String partition;
    private final RateLimitRequest request;
    private final int multiple;
    private final String[] tags;
    private final int mostMoves;
    /** The limits of each part, as indices into the request: the part decided first, then the other. */
    private final int[][] parts = new int[2][];

    private SlotSplit(RedisRateLimitStore store, String partition, RateLimitRequest request, int multiple,
                      String[] tags, int mostMoves) {
        this.store = store;
        this.partition = partition;
        this.request = request;
        this.multiple = multiple;
        this.tags = tags;
        this.mostMoves = mostMoves;
        int n = request.size();
        int application = 0;
        boolean applicationWaits = false;
        for (int i = 0; i < n; i++) {
            if (perApplication(i)) {
                application++;
                applicationWaits |= request.maxWaitNanos(i) > 0;
            }
        }
        int[] applicationPart = new int[application];
        int[] callerPart = new int[n - application];
        for (int i = 0, a = 0, c = 0; i < n; i++) {
            if (perApplication(i)) {
                applicationPart[a++] = i;
            } else {
                callerPart[c++] = i;
            }
        }
        // the per-application part first when it waits; else the caller's, which then waits or nothing waits
        parts[0] = applicationWaits ? applicationPart : callerPart;
        parts[1] = applicationWaits ? callerPart : applicationPart;
    }

    /** Decides {@code request}, whose counts lie in two slots ({@link #oneSlot} false), in one call per part. */
    static CompletableFuture<RateLimitDecision> decide(RedisRateLimitStore store, String partition,
                                                       RateLimitRequest request, int multiple, int mostMoves) {
        return new SlotSplit(store, partition, request, multiple, tags(partition, request), mostMoves).decide();
    }

    /**
     * Gives back what limits {@code limits[0 .. spent)} of {@code decision} spent, their counts in two slots: one call
     * per slot, completing with the permits given back by both.
     */
    static CompletionStage<Long> giveBack(RedisRateLimitStore store, RateLimitDecision decision, int multiple,
                                          int[] limits, int spent) {
        RateLimitRequest request = decision.request();
        int[] grouped = new int[spent];
        int application = 0;
        for (int k = 0; k < spent; k++) {
            if (request.key(limits[k]).perApplication()) {
                grouped[application++] = limits[k];
            }
        }
        for (int k = 0, other = application; k < spent; k++) {
            if (!request.key(limits[k]).perApplication()) {
                grouped[other++] = limits[k];
            }
        }
        return store.giveBack(decision, multiple, grouped, 0, application)
                .thenCombine(store.giveBack(decision, multiple, grouped, application, spent), Long::sum);
    }

    /**
     * The hash tag of each limit's count, for a request split over two slots: the partition's, or for a count per
     * application {@link RedisKeys#APPLICATION_TAG}.
     */
    private static String[] tags(String partition, RateLimitRequest request) {
        int n = request.size();
        String[] tags = new String[n];
        String caller = null;
        for (int i = 0; i < n; i++) {
            if (request.key(i).perApplication()) {
                tags[i] = RedisKeys.APPLICATION_TAG;
            } else {
                if (caller == null) {
                    caller = RedisKeys.tag(partition);
                }
                tags[i] = caller;
            }
        }
        return tags;
    }

    /** True when the request's counts share one slot: all per application, or all per caller. */
    static boolean oneSlot(RateLimitRequest request) {
        boolean first = request.key(0).perApplication();
        for (int i = 1; i < request.size(); i++) {
            if (request.key(i).perApplication() != first) {
                return false;
            }
        }
        return true;
    }

    /** True when the counts of {@code limits[0 .. n)} share one slot. */
    static boolean oneSlot(RateLimitRequest request, int[] limits, int n) {
        boolean first = request.key(limits[0]).perApplication();
        for (int k = 1; k < n; k++) {
            if (request.key(limits[k]).perApplication() != first) {
                return false;
            }
        }
        return true;
    }

    private CompletableFuture<RateLimitDecision> decide() {
        Outcome[][] spent = new Outcome[2][];
        long[] waits = new long[2];
        return call(0, 0, true, null).thenCompose(first -> {
            if (!allows(0, first)) {
                return call(1, 0, false, null).thenApply(second -> decision(first, second));
            }
            spent[0] = first;
            waits[0] = waitOf(first, 0);
            return orGiveBack(call(1, waits[0], true, null), 1, spent).thenCompose(second -> {
                if (!allows(1, second)) {
                    return call(0, 0, false, first).thenApply(undone -> decision(undone, second));
                }
                spent[1] = second;
                waits[1] = waitOf(second, waits[0]);
                return settle(spent, waits, 1, 0);
            });
        });
    }

    /**
     * Both parts spent, part {@code later} going no sooner than the other: done when both go at the same instant,
     * else the other part's permits move to the later instant.
     */
    private CompletableFuture<RateLimitDecision> settle(Outcome[][] spent, long[] waits, int later, int moves) {
        int earlier = 1 - later;
        if (waits[earlier] == waits[later]) {
            return CompletableFuture.completedFuture(decision(spent[0], spent[1]));
        }
        if (moves >= mostMoves) {
            return giveUp(spent, later, waits[later]);
        }
        return orGiveBack(call(earlier, waits[later], true, spent[earlier]), earlier, spent).thenCompose(moved -> {
            if (!allows(earlier, moved)) {
                // it cannot go at the later instant, and gave its permits back: so does the other part
                spent[earlier] = null;
                return call(later, 0, false, spent[later])
                        .thenApply(undone -> earlier == 0 ? decision(moved, undone) : decision(undone, moved));
            }
            spent[earlier] = moved;
            waits[earlier] = waitOf(moved, waits[later]);
            return settle(spent, waits, earlier, moves + 1);
        });
    }

    /**
     * Others kept reserving between the calls: both parts give their permits back, and the waiting limits of the
     * part that went later refuse, saying when it would have gone.
     */
    private CompletableFuture<RateLimitDecision> giveUp(Outcome[][] spent, int later, long wait) {
        CompletableFuture<Outcome[]> first = call(0, 0, false, spent[0]);
        CompletableFuture<Outcome[]> second = call(1, 0, false, spent[1]);
        return first.thenCombine(second, (a, b) -> {
            Outcome[] late = later == 0 ? a : b;
            for (int k = 0; k < late.length; k++) {
                int i = parts[later][k];
                if (request.kind(i) == Kind.ACQUIRE && request.maxWaitNanos(i) > 0 && late[k].state() == State.UNSPENT) {
                    late[k] = new Outcome(late[k].policy(), State.REFUSED, 0, late[k].resetNanos(), wait,
                            RateLimitDecision.NO_RECEIPT);
                }
            }
            return decision(a, b);
        });
    }

    /**
     * {@code stage}, a call over part {@code called}; if it fails, the other part gives back what it spent (as far
     * as Redis lets it) as the request fails. Not the called part: whether its script ran is unknown, and a receipt
     * given back twice would free another caller's permits; left spent, they return in their time.
     */
    private CompletableFuture<Outcome[]> orGiveBack(CompletableFuture<Outcome[]> stage, int called, Outcome[][] spent) {
        return stage.whenComplete((outcomes, failure) -> {
            if (failure != null && spent[1 - called] != null) {
                call(1 - called, 0, false, spent[1 - called]);
            }
        });
    }

    private CompletableFuture<Outcome[]> call(int part, long floorNanos, boolean spend, Outcome[] giveBack) {
        return store.call(partition, request, multiple, parts[part], tags, floorNanos, spend, giveBack);
    }

    private boolean perApplication(int i) {
        return RedisKeys.APPLICATION_TAG.equals(tags[i]);
    }

    /** False when an enforced limit of the part refused. */
    private boolean allows(int part, Outcome[] outcomes) {
        for (int k = 0; k < outcomes.length; k++) {
            if (outcomes[k].state() == State.REFUSED && request.kind(parts[part][k]) == Kind.ACQUIRE) {
                return false;
            }
        }
        return true;
    }

    /** How long from its call a part goes: its floor, or its latest grant. */
    private static long waitOf(Outcome[] outcomes, long floorNanos) {
        long wait = floorNanos;
        for (Outcome o : outcomes) {
            wait = Math.max(wait, o.waitNanos());
        }
        return wait;
    }

    private RateLimitDecision decision(Outcome[] first, Outcome[] second) {
        Outcome[] outcomes = new Outcome[request.size()];
        for (int k = 0; k < first.length; k++) {
            outcomes[parts[0][k]] = first[k];
        }
        for (int k = 0; k < second.length; k++) {
            outcomes[parts[1][k]] = second[k];
        }
        return RateLimitDecision.ofArray(partition, request, multiple, outcomes);
    }
}
