package dev.ratelimit.core.store;

import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import java.util.function.LongSupplier;

/**
 * The in-process store's decisions and give-backs: every path by which a request's counts are decided, from the
 * lock-free common cases to all or nothing under every count's lock. Its counts come from {@link TrackedCounts}
 * (null there: the limit's table has no room, and the limit lets the request through uncounted; a limit that counts
 * only failures refuses it instead, with its window as the retry-after: a guess let through uncounted is a guess
 * the limit never sees).
 *
 * <p>Concurrency: each count is guarded by its own lock ({@link Count}); the counts of one request are locked in
 * the order of their keys' ids ({@link RateLimitRequest#lockOrder}), so deciding several limits is atomic and cannot
 * deadlock. A request of one limit usually takes no lock at all ({@link Count#tryAcquire}); one of two limits
 * usually locks only its first count, and never waits on the second ({@link Count#tryHold}). A count found evicted
 * or replaced under its lock is looked up again. Holds no state of its own.
 */
final class CountDecisions {

    private final LongSupplier clock;
    private final TrackedCounts tracked;

    CountDecisions(LongSupplier clock, TrackedCounts tracked) {
        this.clock = clock;
        this.tracked = tracked;
    }

    /** {@link InProcessRateLimitStore#decide}: a request of one limit that is allowed allocates nothing but the decision. */
    RateLimitDecision decide(String partition, RateLimitRequest request, int multiple) {
        // the common cases first, without a lock: one or two enforced limits whose counts exist and can spend
        // alone (Count#tryAcquire, Count#tryHold); everything else, and whatever these cannot decide, in full,
        // under the counts' locks (which decides everything: the paths below do not try these again)
        int n = request.size();
        // the partition's stored form once per request, whatever its number of limits (a table per application
        // ignores it: a request of that one limit digests nothing)
        String stored = n == 1 && CountTable.of(request, 0).single() ? partition : tracked.stored(partition);
        if (multiple > 0 && n <= 2 && request.kind(0) == Kind.ACQUIRE && !request.waits()) {
            Count count0 = CountTable.of(request, 0).countStored(stored);
            if (n == 1 && count0 != null && count0.tag == request.tag(0)) {
                Outcome fast = count0.tryAcquire(clock.getAsLong(), (long) request.cost(0) * multiple, request.policy(0));
                if (fast != null) {
                    return RateLimitDecision.of(partition, request, multiple, fast);
                }
            } else if (n == 2 && count0 != null && request.kind(1) == Kind.ACQUIRE && count0.tag == request.tag(0)) {
                Count count1 = CountTable.of(request, 1).countStored(stored);
                if (count1 != null && count1.tag == request.tag(1)) {
                    RateLimitDecision both = holdBoth(partition, request, multiple, count0, count1, clock.getAsLong());
                    if (both != null) {
                        return both;
                    }
                }
            }
        }
        return decideInFull(partition, stored, request, multiple);
    }

    /** {@link #decide} under the counts' locks; {@code stored}: the partition's stored form ({@link TrackedCounts#stored}). */
    private RateLimitDecision decideInFull(String partition, String stored, RateLimitRequest request, int multiple) {
        if (multiple < 1) {
            throw new IllegalArgumentException("multiple must be >= 1, was " + multiple);
        }
        if (request.size() == 1) {
            return RateLimitDecision.of(partition, request, multiple, decideOne(stored, request, multiple));
        }
        if (request.size() == 2 && request.kind(0) == Kind.ACQUIRE && request.kind(1) == Kind.ACQUIRE && !request.waits()) {
            RateLimitDecision two = decideTwo(partition, stored, request, multiple);
            if (two != null) {
                return two;
            }
        }
        return RateLimitDecision.ofArray(partition, request, multiple, decideAll(stored, request, multiple));
    }

    /**
     * {@link InProcessRateLimitStore#giveBack}: the permits of all the decision's limits come back together, their
     * counts locked in the same order as for a decision, so that no request sees some back and others not.
     */
    void giveBack(RateLimitDecision decision) {
        RateLimitRequest request = decision.request();
        int n = request.size();
        Count[] counts = new Count[n];
        boolean any = false;
        String stored = tracked.stored(decision.partition());
        for (int i = 0; i < n; i++) {
            if (decision.outcome(i).spent() && request.kind(i) != Kind.CHARGE) {
                counts[i] = CountTable.of(request, i).countStored(stored);
                any |= counts[i] != null;
            }
        }
        if (!any) {
            return;
        }
        long now = clock.getAsLong();
        boolean[] live = new boolean[n];
        try {
            for (int k = 0; k < n; k++) {
                int i = request.lockOrder(k);
                if (counts[i] != null) {
                    live[i] = counts[i].lock();
                }
            }
            for (int i = 0; i < n; i++) {
                if (live[i]) {
                    counts[i].giveBack(counts[i].notBefore(now), decision.outcome(i).receipt(), decision.permits(i));
                }
            }
        } finally {
            for (int k = n - 1; k >= 0; k--) {
                Count count = counts[request.lockOrder(k)];
                if (count != null) {
                    count.unlock();
                }
            }
        }
    }

    private Outcome decideOne(String stored, RateLimitRequest request, int multiple) {
        CountTable table = CountTable.of(request, 0);
        RateLimitPolicy policy = request.policy(0);
        Kind kind = request.kind(0);
        long permits = (long) request.cost(0) * multiple;
        while (true) {
            long now = clock.getAsLong();
            Count count = tracked.find(table, stored, request, 0, now);
            if (count == null) {
                return refusesWithoutRoom(request, 0) ? noRoom(policy) : Outcome.uncounted(policy);
            }
            boolean live = count.lock();
            try {
                if (!live) {
                    continue;
                }
                long at = count.notBefore(now);
                if (!table.ready(stored, count, policy, request.tag(0), at)) {
                    continue;
                }
                if (kind == Kind.CHARGE || count.has(at, permits)) {
                    return spent(count, policy, at, permits);
                }
                long maxWait = request.maxWaitNanos(0);
                if (maxWait > 0) {
                    long grant = count.grantAt(at, permits);
                    if (grant - at <= maxWait) {
                        return reserved(count, policy, at, grant, permits, grant - now);
                    }
                }
                return refused(count, policy, at, permits);
            } finally {
                count.unlock();
            }
        }
    }

    /**
     * Two enforced limits, the common case of several, under both counts' locks: {@link #decideAll} without its
     * arrays and loops. Null (nothing done) when the store has no room for a count: {@link #decideAll} decides without
     * it.
     */
    private RateLimitDecision decideTwo(String partition, String stored, RateLimitRequest request, int multiple) {
        CountTable table0 = CountTable.of(request, 0);
        CountTable table1 = CountTable.of(request, 1);
        RateLimitPolicy policy0 = request.policy(0);
        RateLimitPolicy policy1 = request.policy(1);
        long permits0 = (long) request.cost(0) * multiple;
        long permits1 = (long) request.cost(1) * multiple;
        boolean inOrder = request.lockOrder(0) == 0;
        while (true) {
            long now = clock.getAsLong();
            Count count0 = tracked.find(table0, stored, request, 0, now);
            Count count1 = count0 == null ? null : tracked.find(table1, stored, request, 1, now);
            if (count1 == null) {
                return null;
            }
            Count first = inOrder ? count0 : count1;
            Count second = inOrder ? count1 : count0;
            boolean live = first.lock();
            try {
                if (!live) {
                    continue;
                }
                live = second.lock();
                try {
                    if (!live) {
                        continue;
                    }
                    long at0 = count0.notBefore(now);
                    long at1 = count1.notBefore(now);
                    if (!table0.ready(stored, count0, policy0, request.tag(0), at0)
                            || !table1.ready(stored, count1, policy1, request.tag(1), at1)) {
                        continue;
                    }
                    boolean has0 = count0.has(at0, permits0);
                    boolean has1 = count1.has(at1, permits1);
                    if (has0 && has1) {
                        return RateLimitDecision.of(partition, request, multiple, spent(count0, policy0, at0, permits0),
                                spent(count1, policy1, at1, permits1));
                    }
                    return RateLimitDecision.of(partition, request, multiple,
                            has0 ? unspent(count0, policy0, at0) : refused(count0, policy0, at0, permits0),
                            has1 ? unspent(count1, policy1, at1) : refused(count1, policy1, at1, permits1));
                } finally {
                    second.unlock();
                }
            } finally {
                first.unlock();
            }
        }
    }

    /**
     * Two enforced limits without waiting on a lock: the first count held with its permits while the second takes
     * its own by compare-and-set; nobody waits on the second, so the lock order does not matter here.
     *
     * @return the decision when both spent; null (nothing spent) when either count needs the locked path
     */
    private static RateLimitDecision holdBoth(String partition, RateLimitRequest request, int multiple, Count count0,
                                              Count count1, long now) {
        long permits0 = (long) request.cost(0) * multiple;
        Outcome held = count0.tryHold(now, permits0, request.policy(0));
        if (held == null) {
            return null;
        }
        Outcome other = null;
        boolean both = false;
        try {
            other = count1.tryAcquire(now, (long) request.cost(1) * multiple, request.policy(1));
            both = other != null && other.spent();
        } finally {
            count0.releaseHeld(permits0, both);
        }
        return both ? RateLimitDecision.of(partition, request, multiple, held, other) : null;
    }

    private Outcome[] decideAll(String stored, RateLimitRequest request, int multiple) {
        int n = request.size();
        Count[] counts = new Count[n];
        Outcome[] outcomes = new Outcome[n];
        while (true) {
            long now = clock.getAsLong();
            for (int i = 0; i < n; i++) {
                counts[i] = tracked.find(CountTable.of(request, i), stored, request, i, now);
            }
            int locked = 0;
            try {
                boolean ready = true;
                for (; locked < n && ready; locked++) {
                    Count count = counts[request.lockOrder(locked)];
                    ready = count == null || count.lock();
                }
                for (int k = 0; k < locked && ready; k++) {
                    int i = request.lockOrder(k);
                    if (counts[i] == null) {
                        continue;
                    }
                    long at = counts[i].notBefore(now);
                    ready = CountTable.of(request, i).ready(stored, counts[i], request.policy(i), request.tag(i), at);
                }
                if (ready) {
                    decideLocked(request, multiple, counts, now, outcomes);
                    return outcomes;
                }
            } finally {
                for (int k = locked - 1; k >= 0; k--) {
                    Count count = counts[request.lockOrder(k)];
                    if (count != null) {
                        count.unlock();
                    }
                }
            }
        }
    }

    /**
     * All or nothing over the enforced limits; every count is locked and prepared. Limits that may wait are
     * reserved together, for the latest instant any of them needs (each within its own wait), or not at all.
     */
    private static void decideLocked(RateLimitRequest request, int multiple, Count[] counts, long now, Outcome[] outcomes) {
        int n = counts.length;
        boolean all = true;
        long goAt = now; // when the call goes ahead: the latest grant of its limits
        for (int i = 0; i < n; i++) {
            if (counts[i] == null && refusesWithoutRoom(request, i)) {
                all = false;
            } else if (counts[i] != null && request.kind(i) == Kind.ACQUIRE) {
                long at = counts[i].notBefore(now);
                long permits = (long) request.cost(i) * multiple;
                if (request.maxWaitNanos(i) == 0) {
                    all &= counts[i].has(at, permits);
                } else {
                    long grant = counts[i].grantAt(at, permits);
                    all &= grant - at <= request.maxWaitNanos(i);
                    goAt = grant - goAt > 0 ? grant : goAt;
                }
            }
        }
        for (int i = 0; i < n; i++) {
            RateLimitPolicy policy = request.policy(i);
            Count count = counts[i];
            long permits = (long) request.cost(i) * multiple;
            Kind kind = request.kind(i);
            if (count == null) {
                outcomes[i] = refusesWithoutRoom(request, i) ? noRoom(policy) : Outcome.uncounted(policy);
                continue;
            }
            long at = count.notBefore(now);
            if (all && kind == Kind.ACQUIRE && goAt - now > 0) {
                outcomes[i] = reserved(count, policy, at, goAt - at > 0 ? goAt : at, permits, goAt - now);
            } else if (all && (kind == Kind.CHARGE || count.has(at, permits))) {
                outcomes[i] = spent(count, policy, at, permits);
            } else if (kind == Kind.CHARGE || count.has(at, permits)
                    || (kind == Kind.ACQUIRE && request.maxWaitNanos(i) > 0
                    && count.grantAt(at, permits) - at <= request.maxWaitNanos(i))) {
                outcomes[i] = unspent(count, policy, at);
            } else {
                outcomes[i] = refused(count, policy, at, permits);
            }
        }
    }

    /** True when limit {@code i} refuses a request for which its table has no room: an enforced limit of failures. */
    static boolean refusesWithoutRoom(RateLimitRequest request, int i) {
        return request.kind(i) == Kind.ACQUIRE && request.key(i).failuresOnly();
    }

    /** The refusal of a limit of failures whose table has no room: try again in a window, when counts have emptied. */
    static Outcome noRoom(RateLimitPolicy policy) {
        return new Outcome(policy, State.REFUSED, 0, policy.windowNanos(), policy.windowNanos(),
                RateLimitDecision.NO_RECEIPT);
    }

    /** Spends {@code permits} from a locked, prepared count. */
    static Outcome spent(Count count, RateLimitPolicy policy, long now, long permits) {
        long receipt = count.spend(now, permits);
        return new Outcome(policy, State.SPENT, count.remaining(now), count.resetNanos(now), 0, receipt);
    }

    /** Reserves {@code permits} of a locked, prepared count for the instant {@code goAt}, {@code wait} from the decision. */
    static Outcome reserved(Count count, RateLimitPolicy policy, long now, long goAt, long permits, long wait) {
        long receipt = count.spendAt(now, goAt, permits);
        return new Outcome(policy, State.SPENT, count.remaining(now), count.resetNanos(now), 0, receipt, Math.max(wait, 0));
    }

    /** A locked, prepared count that had the permits, when another limit refused the request. */
    static Outcome unspent(Count count, RateLimitPolicy policy, long now) {
        return new Outcome(policy, State.UNSPENT, count.remaining(now), count.resetNanos(now), 0,
                RateLimitDecision.NO_RECEIPT);
    }

    static Outcome refused(Count count, RateLimitPolicy policy, long now, long permits) {
        return new Outcome(policy, State.REFUSED, 0, count.resetNanos(now), count.retryAfterNanos(now, permits),
                RateLimitDecision.NO_RECEIPT);
    }
}
