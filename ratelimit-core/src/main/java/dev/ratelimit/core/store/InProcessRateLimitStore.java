package dev.ratelimit.core.store;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import java.lang.System.Logger.Level;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The default store: counts in this JVM, so each application instance counts alone. Every algorithm,
 * any number of permits, debt, shadow limits; it always decides at once.
 *
 * <p>Capacity. At most {@code maxTrackedPartitions} counts are kept, all keys together. When the table
 * is full, counts that hold nothing (every permit returned) are dropped, at most one sweep a second;
 * such a count holds no information, so dropping it changes no decision. A request that needs a new
 * count while the store is still full is let through uncounted (remaining = its permit limit), and a
 * warning is logged at most once a minute.
 *
 * <p>Concurrency. One {@link Table} per bound key: a {@code ConcurrentHashMap<partition, Count>}. Each
 * count is guarded by its own lock ({@link Count}); the counts of one request are locked in the order of
 * their keys' ids ({@link RateLimitRequest#lockOrder}), so deciding several limits is atomic and cannot
 * deadlock. A request of one limit usually takes no lock at all ({@link Count#tryAcquire}); one of two
 * limits usually locks only its first count, and never waits on the second ({@link Count#tryHold}).
 * {@code tracked} counts the entries of all tables, reserved before an insert; {@code nextSweep} and
 * {@code nextWarning} are clock readings claimed by CAS; {@code tables} is only added to.
 */
public final class InProcessRateLimitStore implements RateLimitStore {

    /** Default of {@code ratelimit.max-tracked-partitions}. */
    public static final int DEFAULT_MAX_TRACKED_PARTITIONS = 10_000;

    private static final System.Logger LOG = System.getLogger(InProcessRateLimitStore.class.getName());
    private static final long SWEEP_INTERVAL_NANOS = 1_000_000_000L;
    private static final long WARNING_INTERVAL_NANOS = 60_000_000_000L;

    private final int maxTracked;
    private final LongSupplier clock;
    private final ConcurrentHashMap<String, Table> tables = new ConcurrentHashMap<>();
    private final AtomicInteger tracked = new AtomicInteger();
    private final AtomicLong nextSweep;
    private final AtomicLong nextWarning;

    /** A store on {@code System.nanoTime()} with {@value #DEFAULT_MAX_TRACKED_PARTITIONS} counts at most. */
    public InProcessRateLimitStore() {
        this(DEFAULT_MAX_TRACKED_PARTITIONS, System::nanoTime);
    }

    /**
     * @param maxTrackedPartitions most counts kept, {@code >= 1}
     * @param nanoClock            a monotonic clock in nanoseconds ({@code System::nanoTime})
     */
    public InProcessRateLimitStore(int maxTrackedPartitions, LongSupplier nanoClock) {
        if (maxTrackedPartitions < 1) {
            throw new IllegalArgumentException("maxTrackedPartitions must be >= 1, was " + maxTrackedPartitions);
        }
        this.maxTracked = maxTrackedPartitions;
        this.clock = nanoClock;
        long now = nanoClock.getAsLong();
        this.nextSweep = new AtomicLong(now);
        this.nextWarning = new AtomicLong(now);
    }

    /** The table of the key's counts; one per name and plan, however often it is bound. */
    @Override
    public Object bind(CountKey key) {
        Table table = tables.computeIfAbsent(key.toString(), k -> new Table(key));
        if (table.key.algorithm() != key.algorithm()) {
            throw new IllegalArgumentException("the counts " + key + " are bound already with the algorithm "
                    + table.key.algorithm() + ", now with " + key.algorithm());
        }
        if (table.key.perApplication() != key.perApplication()) {
            throw new IllegalArgumentException("the counts " + key + " are bound already "
                    + (table.key.perApplication() ? "per application" : "per caller") + ", now the other way");
        }
        return table;
    }

    @Override
    public CompletionStage<RateLimitDecision> acquire(String partition, RateLimitRequest request, int multiple) {
        return CompletableFuture.completedFuture(decide(partition, request, multiple));
    }

    /** Always: this store decides on the caller's thread. */
    @Override
    public boolean answersAtOnce() {
        return true;
    }

    /**
     * {@link #acquire} without the stage. A request of one limit that is allowed allocates nothing but the
     * decision (and its outcome).
     */
    @Override
    public RateLimitDecision decide(String partition, RateLimitRequest request, int multiple) {
        // the common cases first, without a lock: one or two enforced limits whose counts exist and can spend
        // alone (Count#tryAcquire, Count#tryHold); everything else, and whatever these cannot decide, in full,
        // under the counts' locks (which decides everything: the paths below do not try these again)
        int n = request.size();
        if (multiple > 0 && n <= 2 && request.kind(0) == Kind.ACQUIRE && !request.waits()) {
            Count count0 = ((Table) request.handle(0)).count(partition);
            if (n == 1 && count0 != null) {
                Outcome fast = count0.tryAcquire(clock.getAsLong(), (long) request.cost(0) * multiple, request.policy(0));
                if (fast != null) {
                    return RateLimitDecision.of(partition, request, multiple, fast);
                }
            } else if (n == 2 && count0 != null && request.kind(1) == Kind.ACQUIRE) {
                Count count1 = ((Table) request.handle(1)).count(partition);
                if (count1 != null) {
                    RateLimitDecision both = holdBoth(partition, request, multiple, count0, count1, clock.getAsLong());
                    if (both != null) {
                        return both;
                    }
                }
            }
        }
        return decideInFull(partition, request, multiple);
    }

    private RateLimitDecision decideInFull(String partition, RateLimitRequest request, int multiple) {
        if (multiple < 1) {
            throw new IllegalArgumentException("multiple must be >= 1, was " + multiple);
        }
        if (request.size() == 1) {
            return RateLimitDecision.of(partition, request, multiple, decideOne(partition, request, multiple));
        }
        if (request.size() == 2 && request.kind(0) == Kind.ACQUIRE && request.kind(1) == Kind.ACQUIRE && !request.waits()) {
            RateLimitDecision two = decideTwo(partition, request, multiple);
            if (two != null) {
                return two;
            }
        }
        return RateLimitDecision.ofArray(partition, request, multiple, decideAll(partition, request, multiple));
    }

    @Override
    public CompletionStage<Void> release(RateLimitDecision decision) {
        giveBack(decision);
        return CompletableFuture.completedFuture(null);
    }

    /**
     * {@link #release} without the stage. The permits of all the decision's limits come back together: their
     * counts are locked in the same order as for a decision, so no request sees some back and others not.
     */
    public void giveBack(RateLimitDecision decision) {
        RateLimitRequest request = decision.request();
        int n = request.size();
        Count[] counts = new Count[n];
        boolean any = false;
        for (int i = 0; i < n; i++) {
            if (decision.outcome(i).spent() && request.kind(i) != Kind.CHARGE) {
                counts[i] = ((Table) request.handle(i)).count(decision.partition());
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

    /** The counts kept and their most, as the {@code ratelimit.counts} gauge. */
    @Override
    public void register(RateLimitMetrics metrics) {
        metrics.counts(tracked::get, maxTracked);
    }

    /** Counts currently kept, all keys together. */
    public int trackedCounts() {
        return tracked.get();
    }

    /** The most counts kept. */
    public int maxTrackedPartitions() {
        return maxTracked;
    }

    /** Forgets every count, as if the store were new (the test API's reset). Not atomic with requests in flight. */
    @Override
    public void clear() {
        for (Table table : tables.values()) {
            table.forEach((partition, count) -> {
                count.lock();
                try {
                    count.evict();
                } finally {
                    count.unlock();
                }
                if (table.remove(partition, count)) {
                    tracked.decrementAndGet();
                }
            });
        }
    }

    @Override
    public String storeName() {
        return "in-process";
    }

    @Override
    public String toString() {
        return "InProcessRateLimitStore(max-tracked-partitions=" + maxTracked + ")";
    }

    private Outcome decideOne(String partition, RateLimitRequest request, int multiple) {
        Table table = (Table) request.handle(0);
        RateLimitPolicy policy = request.policy(0);
        Kind kind = request.kind(0);
        long permits = (long) request.cost(0) * multiple;
        while (true) {
            long now = clock.getAsLong();
            Count count = find(table, partition, policy, now);
            if (count == null) {
                return Outcome.uncounted(policy);
            }
            boolean live = count.lock();
            try {
                if (!live) {
                    continue;
                }
                long at = count.notBefore(now);
                if (!count.prepare(at, policy)) {
                    replace(table, partition, count, policy, at);
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
     * arrays and loops. Null (nothing done) when the store has no room for a count: {@link #decideAll} lets the
     * request through uncounted.
     */
    private RateLimitDecision decideTwo(String partition, RateLimitRequest request, int multiple) {
        Table table0 = (Table) request.handle(0);
        Table table1 = (Table) request.handle(1);
        RateLimitPolicy policy0 = request.policy(0);
        RateLimitPolicy policy1 = request.policy(1);
        long permits0 = (long) request.cost(0) * multiple;
        long permits1 = (long) request.cost(1) * multiple;
        boolean inOrder = request.lockOrder(0) == 0;
        while (true) {
            long now = clock.getAsLong();
            Count count0 = find(table0, partition, policy0, now);
            Count count1 = count0 == null ? null : find(table1, partition, policy1, now);
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
                    if (!count0.prepare(at0, policy0)) {
                        replace(table0, partition, count0, policy0, at0);
                        continue;
                    }
                    if (!count1.prepare(at1, policy1)) {
                        replace(table1, partition, count1, policy1, at1);
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

    private Outcome[] decideAll(String partition, RateLimitRequest request, int multiple) {
        int n = request.size();
        Count[] counts = new Count[n];
        Outcome[] outcomes = new Outcome[n];
        while (true) {
            long now = clock.getAsLong();
            for (int i = 0; i < n; i++) {
                counts[i] = find((Table) request.handle(i), partition, request.policy(i), now);
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
                    if (!counts[i].prepare(at, request.policy(i))) {
                        replace((Table) request.handle(i), partition, counts[i], request.policy(i), at);
                        ready = false;
                    }
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
            if (counts[i] != null && request.kind(i) == Kind.ACQUIRE) {
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
                outcomes[i] = Outcome.uncounted(policy);
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

    /** Spends {@code permits} from a locked, prepared count. */
    private static Outcome spent(Count count, RateLimitPolicy policy, long now, long permits) {
        long receipt = count.spend(now, permits);
        return new Outcome(policy, State.SPENT, count.remaining(now), count.resetNanos(now), 0, receipt);
    }

    /** Reserves {@code permits} of a locked, prepared count for the instant {@code goAt}, {@code wait} from the decision. */
    private static Outcome reserved(Count count, RateLimitPolicy policy, long now, long goAt, long permits, long wait) {
        long receipt = count.spendAt(now, goAt, permits);
        return new Outcome(policy, State.SPENT, count.remaining(now), count.resetNanos(now), 0, receipt, Math.max(wait, 0));
    }

    /** A locked, prepared count that had the permits, when another limit refused the request. */
    private static Outcome unspent(Count count, RateLimitPolicy policy, long now) {
        return new Outcome(policy, State.UNSPENT, count.remaining(now), count.resetNanos(now), 0,
                RateLimitDecision.NO_RECEIPT);
    }

    private static Outcome refused(Count count, RateLimitPolicy policy, long now, long permits) {
        return new Outcome(policy, State.REFUSED, 0, count.resetNanos(now), count.retryAfterNanos(now, permits),
                RateLimitDecision.NO_RECEIPT);
    }

    /** Replaces a count that holds nothing by one sized by {@code policy}. Requires the old count's lock. */
    private static void replace(Table table, String partition, Count old, RateLimitPolicy policy, long now) {
        old.evict();
        table.replace(table.partition(partition), old, table.newCount(now, policy));
    }

    /** The count of (table, partition), created if there is room; null when the store is full. */
    private Count find(Table table, String partition, RateLimitPolicy policy, long now) {
        Count count = table.count(partition);
        if (count != null) {
            return count;
        }
        if (!reserve(now)) {
            return null;
        }
        Count created = table.newCount(now, policy);
        Count raced = table.putIfAbsent(table.partition(partition), created);
        if (raced != null) {
            tracked.decrementAndGet();
            return raced;
        }
        return created;
    }

    private boolean reserve(long now) {
        if (tryReserve()) {
            return true;
        }
        if (claim(nextSweep, now, SWEEP_INTERVAL_NANOS)) {
            sweep(now);
            if (tryReserve()) {
                return true;
            }
        }
        if (claim(nextWarning, now, WARNING_INTERVAL_NANOS)) {
            LOG.log(Level.WARNING, "ratelimit: the in-process store holds " + maxTracked
                    + " counts in use (ratelimit.max-tracked-partitions); requests that need a new count "
                    + "are let through uncounted until counts empty");
        }
        return false;
    }

    private boolean tryReserve() {
        if (tracked.incrementAndGet() <= maxTracked) {
            return true;
        }
        tracked.decrementAndGet();
        return false;
    }

    /** Claims the moment {@code due} if it has come, and sets the next one {@code interval} later. */
    private static boolean claim(AtomicLong due, long now, long interval) {
        long at = due.get();
        return now - at >= 0 && due.compareAndSet(at, now + interval);
    }

    /** Drops every count that holds nothing. */
    private void sweep(long now) {
        for (Table table : tables.values()) {
            table.forEach((partition, count) -> {
                boolean dropped;
                boolean live = count.lock();
                try {
                    dropped = live && count.idle(now);
                    if (dropped) {
                        count.evict();
                    }
                } finally {
                    count.unlock();
                }
                if (dropped && table.remove(partition, count)) {
                    tracked.decrementAndGet();
                }
            });
        }
    }

    /**
     * The counts of one key by partition: the store's handle on it ({@link #bind}). The map itself rather than a
     * field of it, so that a request reaches a count one reference sooner.
     */
    @SuppressWarnings("serial") // never serialized: a handle lives and dies with its store
    static final class Table extends ConcurrentHashMap<String, Count> {
        final CountKey key;
        private final boolean bucket;
        /** The one partition of a key per application ({@link CountKey#APPLICATION}); null for a key per caller. */
        private final String only;

        Table(CountKey key) {
            this.key = key;
            this.bucket = key.algorithm() == RateLimitAlgorithm.TOKEN_BUCKET;
            this.only = key.perApplication() ? CountKey.APPLICATION : null;
        }

        /** The partition this table keeps {@code partition}'s count under. */
        String partition(String partition) {
            return only == null ? partition : only;
        }

        /** The count of {@code partition}, or null. */
        Count count(String partition) {
            return get(only == null ? partition : only);
        }

        Count newCount(long now, RateLimitPolicy policy) {
            return bucket ? new BucketCount(now, policy) : new WindowCount(now, policy);
        }

        @Override
        public String toString() {
            return "Table[" + key + ", " + size() + " counts]";
        }
    }
}
