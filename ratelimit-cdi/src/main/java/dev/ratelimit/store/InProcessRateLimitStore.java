package dev.ratelimit.store;

import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimitDecision.Acquisition;
import dev.ratelimit.RateLimitDecision.Outcome;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.internal.engine.SlidingWindowCount;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The default store: counts in this JVM, so each application instance counts alone.
 *
 * <p>At most {@code maxTrackedPartitions} counts are kept (all names together). When the table is
 * full, counts whose permits have all returned are dropped (at most one sweep per second); such a
 * count holds no information, so dropping it changes no decision. A request that needs a new count
 * while the table is still full is let through uncounted (remaining = its permit limit), and a
 * warning is logged at most once a minute.
 *
 * <p>Concurrency: one table per limit name, {@code ConcurrentHashMap<partition, count>}. Each count is
 * guarded by its own lock ({@link SlidingWindowCount#lock()}); the counts of one request are locked in
 * the order of their names (all of a request's counts share its partition, and its names are
 * distinct), so acquiring several limits is atomic and cannot deadlock. {@code tracked} counts the entries of all tables, reserved
 * before an insert. {@code nextSweep} and {@code nextWarning} are clock readings claimed by CAS.
 * {@code firstNames} is a copy-on-write array of immutable entries, replaced under {@code this}.
 *
 * <p>The allowed path of a single limit ({@link #tryAcquire}) allocates nothing and takes one atomic
 * instruction: see {@link SlidingWindowCount} and benchmarks/RESULTS.md.
 */
public final class InProcessRateLimitStore implements RateLimitStore {

    /** Default of {@code ratelimit.max-tracked-partitions}. */
    public static final int DEFAULT_MAX_TRACKED_PARTITIONS = 10_000;

    private static final System.Logger LOG = System.getLogger(InProcessRateLimitStore.class.getName());
    private static final long SWEEP_INTERVAL_NANOS = 1_000_000_000L;
    private static final long WARNING_INTERVAL_NANOS = 60_000_000_000L;
    private static final int FIRST_NAMES = 8;
    /**
     * {@link #decide}'s holder, one per thread: a new one per call would be garbage whenever the
     * compiler does not inline all of {@link #tryAcquire} (it is not small), and the decision path
     * would allocate more than the decision it returns.
     */
    private static final ThreadLocal<Acquisition> HOLDER = ThreadLocal.withInitial(Acquisition::new);

    private final int maxTracked;
    private final LongSupplier clock;
    private final ConcurrentHashMap<String, ConcurrentHashMap<String, SlidingWindowCount>> tables =
            new ConcurrentHashMap<>();
    /** Append-only (copy on write, under {@code this}), at most {@value #FIRST_NAMES}: see {@link #table}. */
    private volatile Named[] firstNames = new Named[0];
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

    @Override
    public CompletionStage<RateLimitDecision> acquire(String partition, List<RateLimitPolicy> policies) {
        return CompletableFuture.completedFuture(decide(partition, policies));
    }

    /** {@link #acquire} without the stage: this store always decides at once. */
    public RateLimitDecision decide(String partition, List<RateLimitPolicy> policies) {
        if (policies.size() == 1) {
            return RateLimitDecision.of(partition, decideOne(partition, policies.get(0)));
        }
        return new RateLimitDecision(partition, List.of(decideAll(partition, policies)));
    }

    /**
     * Decides a single limit without allocating: what {@link #decide} does for a request with one
     * limit, the result written into {@code into} instead of a new decision value. The decision path
     * runs through here, so this is the code production runs; a caller that keeps one
     * {@link Acquisition} per thread spends a permit with no garbage at all. The common case (a count
     * in use, still in its newest step, with a permit left) takes no lock: one compare-and-set.
     *
     * @param partition the partition, from the {@code RateLimitPartitioner}
     * @param policy    the limit
     * @param into      receives the outcome; overwritten
     * @return {@code into.allowed()}: true when a permit was spent (or the table was full and the
     *         request is let through uncounted)
     */
    public boolean tryAcquire(String partition, RateLimitPolicy policy, Acquisition into) {
        while (true) {
            long now = clock.getAsLong();
            SlidingWindowCount count = find(policy, partition, now);
            if (count == null) {
                into.set(true, policy.permitLimit(), -1, RateLimitDecision.NO_RECEIPT);
                return true;
            }
            if (count.spendWithoutLock(now, into)) {
                return true;
            }
            boolean live = count.lock();
            try {
                if (!live) {
                    continue;
                }
                count.prepare(now, policy);
                if (count.hasPermit()) {
                    long receipt = count.spend();
                    into.set(true, count.remaining(), count.nanosUntilOldestReturns(now), receipt);
                    return true;
                }
                into.set(false, 0, count.nanosUntilOldestReturns(now), RateLimitDecision.NO_RECEIPT);
                return false;
            } finally {
                count.unlock();
            }
        }
    }

    @Override
    public void release(RateLimitDecision decision) {
        long now = clock.getAsLong();
        for (Outcome outcome : decision.outcomes()) {
            if (!outcome.spent()) {
                continue;
            }
            ConcurrentHashMap<String, SlidingWindowCount> table = tables.get(outcome.policy().name());
            SlidingWindowCount count = table == null ? null : table.get(decision.partition());
            if (count != null) {
                boolean live = count.lock();
                try {
                    if (live) {
                        count.giveBack(outcome.receipt(), now);
                    }
                } finally {
                    count.unlock();
                }
            }
        }
    }

    /** Counts currently kept, all names together. */
    public int trackedCounts() {
        return tracked.get();
    }

    /** The most counts kept. */
    public int maxTrackedPartitions() {
        return maxTracked;
    }

    @Override
    public String toString() {
        return "InProcessRateLimitStore(max-tracked-partitions=" + maxTracked + ")";
    }

    private Outcome decideOne(String partition, RateLimitPolicy policy) {
        Acquisition acquisition = HOLDER.get();
        tryAcquire(partition, policy, acquisition);
        return acquisition.outcome(policy);
    }

    private Outcome[] decideAll(String partition, List<RateLimitPolicy> policies) {
        int n = policies.size();
        int[] order = lockOrder(policies);
        SlidingWindowCount[] counts = new SlidingWindowCount[n];
        Outcome[] outcomes = new Outcome[n];
        while (true) {
            long now = clock.getAsLong();
            for (int i = 0; i < n; i++) {
                counts[i] = find(policies.get(i), partition, now);
            }
            if (decideLocked(policies, counts, order, 0, now, outcomes)) {
                return outcomes;
            }
        }
    }

    /** Locks counts[order[depth..]] in order, then decides; false when one was evicted meanwhile. */
    private static boolean decideLocked(List<RateLimitPolicy> policies, SlidingWindowCount[] counts, int[] order,
                                        int depth, long now, Outcome[] outcomes) {
        if (depth < order.length) {
            SlidingWindowCount count = counts[order[depth]];
            if (count == null) {
                return decideLocked(policies, counts, order, depth + 1, now, outcomes);
            }
            boolean live = count.lock();
            try {
                return live && decideLocked(policies, counts, order, depth + 1, now, outcomes);
            } finally {
                count.unlock();
            }
        }
        boolean all = true;
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] != null) {
                counts[i].prepare(now, policies.get(i));
                all &= counts[i].hasPermit();
            }
        }
        for (int i = 0; i < counts.length; i++) {
            RateLimitPolicy policy = policies.get(i);
            SlidingWindowCount count = counts[i];
            if (count == null) {
                outcomes[i] = uncounted(policy);
            } else if (all) {
                long receipt = count.spend();
                outcomes[i] = new Outcome(policy, true, count.remaining(), count.nanosUntilOldestReturns(now), receipt);
            } else if (count.hasPermit()) {
                outcomes[i] = new Outcome(policy, true, count.remaining(), count.nanosUntilOldestReturns(now),
                        RateLimitDecision.NO_RECEIPT);
            } else {
                outcomes[i] = new Outcome(policy, false, 0, count.nanosUntilOldestReturns(now),
                        RateLimitDecision.NO_RECEIPT);
            }
        }
        return true;
    }

    private static int[] lockOrder(List<RateLimitPolicy> policies) {
        int n = policies.size();
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            int j = i;
            while (j > 0 && policies.get(order[j - 1]).name().compareTo(policies.get(i).name()) > 0) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = i;
        }
        return order;
    }

    private static Outcome uncounted(RateLimitPolicy policy) {
        return new Outcome(policy, true, policy.permitLimit(), -1, RateLimitDecision.NO_RECEIPT);
    }

    /** The count of (policy's name, partition), created if there is room; null when the table is full. */
    private SlidingWindowCount find(RateLimitPolicy policy, String partition, long now) {
        ConcurrentHashMap<String, SlidingWindowCount> table = table(policy.name());
        SlidingWindowCount count = table.get(partition);
        if (count != null) {
            return count;
        }
        if (!reserve(now)) {
            return null;
        }
        SlidingWindowCount created = new SlidingWindowCount(now, policy);
        SlidingWindowCount raced = table.putIfAbsent(partition, created);
        if (raced != null) {
            tracked.decrementAndGet();
            return raced;
        }
        return created;
    }

    /**
     * The table of {@code name}. A policy's name is one {@code String} for the life of a deployment, so
     * the first few names are found by identity in a short array, without hashing the name; the rest,
     * and an equal name in another {@code String}, through {@code tables}.
     */
    private ConcurrentHashMap<String, SlidingWindowCount> table(String name) {
        for (Named named : firstNames) {
            if (named.name() == name) {
                return named.table();
            }
        }
        ConcurrentHashMap<String, SlidingWindowCount> table = tables.get(name);
        if (table == null) {
            table = tables.computeIfAbsent(name, n -> new ConcurrentHashMap<>());
        }
        if (firstNames.length < FIRST_NAMES) { // once full, a miss costs no lock
            remember(name, table);
        }
        return table;
    }

    private synchronized void remember(String name, ConcurrentHashMap<String, SlidingWindowCount> table) {
        Named[] known = firstNames;
        if (known.length == FIRST_NAMES) {
            return;
        }
        for (Named named : known) {
            if (named.name() == name) {
                return; // another thread remembered it meanwhile
            }
        }
        // an equal name in another String gets an entry of its own: identity is what the loop above tests
        Named[] grown = java.util.Arrays.copyOf(known, known.length + 1);
        grown[known.length] = new Named(name, table);
        firstNames = grown;
    }

    /** A name and its table, immutable. */
    private record Named(String name, ConcurrentHashMap<String, SlidingWindowCount> table) {
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

    /** Drops every count whose permits have all returned. */
    private void sweep(long now) {
        for (ConcurrentHashMap<String, SlidingWindowCount> table : tables.values()) {
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
}
