package dev.ratelimit.core.guard;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Slices of a shared store's counts, decided at home (docs/stores.md, "Exact or sliced"): when a (call site's
 * request, partition) is busy on this instance, one store call spends {@code k} times the request's cost at once
 * ({@link RateLimitStore#acquire} with {@code multiple = k}); the count's next requests are decided here, in memory,
 * from those permits, until they are used up or the slice's lease ends; the unused part goes back
 * ({@link RateLimitStore#release(RateLimitDecision, int)}).
 *
 * <p>Why it never admits over the limit: a slice's permits are spent in the store before any of them is used, under
 * the store's own all-or-nothing rule, so the store's count plus every instance's unused slices never hold more than
 * the limit. And a slice's lease ends no later than the end of the store's step (an eighth of the window) in which its
 * permits were spent, so each permit used here is used in the step the store counted it in: for the sliding and the
 * strict window alike that is what an exact request of that instant would have spent, so each holds in its own terms
 * (the strict window: at most N in any span of the window). The end of that step is read from the store's answer: a
 * spent outcome's reset (until its oldest permit returns: the end of a step, a whole number of steps after the end of the
 * step it was spent in) is congruent, modulo the step, to the time left in the current step. A token bucket's permits taken
 * are gone whenever they are used: its lease is {@code ratelimit.store.slice-lease-millis}.
 *
 * <p>Sizing: {@code k = min(the requests this instance saw of the count over the last lease (scaled to the lease the
 * slice will have), slice-max-share x limit, the store's remaining / 2)} (each over the request's cost); {@code k <= 1}
 * (or no more than the request needs) takes no slice: the request is decided by the store, exactly. The first request
 * after a lease without an answer of the store goes to the store: that is how the rate and the remaining are learned.
 *
 * <p>Announcements: a restart (the admin API, on any instance) forgets the count's permits, so a slice of it must not be
 * used afterwards: the store announces every restart, and each announcement of a count ({@link #gained}; the store
 * does not say whether a restart or a give-back) ends this instance's slices of it, their unused part given back (a
 * receipt of a count started afresh since is ignored by the store: its permits have returned, so nothing is gained
 * twice). A slice whose call was out while its count was announced is ended as soon as it arrives, its request
 * decided from it. Lost announcements end every slice so. New values (live values) give every slice back and forget
 * them; so does the engine's shutdown.
 *
 * <p>Concurrency: the hot path reads the slice's lease (a volatile field) and takes permits with a compare-and-set on
 * its {@code units}; closing a lease swaps its units for {@link #CLOSED} at once, so a permit is either used or given
 * back, never both. One slice call at a time per slice ({@code taking}); other requests meanwhile go to the store
 * exactly. The demand counters are racy on purpose: a lost increment only makes a slice smaller.
 *
 * <p>The library's internals: not an API.
 */
final class Slices implements RateLimitStore.CountListener {

    /** The units of a lease that is closed: its unused part went back, or was dropped. */
    static final int CLOSED = Integer.MIN_VALUE;
    /** Taken off the time left in a step, against rounding between the store's clock units and these. */
    private static final long STEP_MARGIN_NANOS = 1_000;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final RateLimitStore store;
    private final LongSupplier clock;
    private final RateLimitMetrics metrics;
    private final int capacity;
    private final Returns returns;
    private final ConcurrentHashMap<RateLimitRequest, SliceSite> sites = new ConcurrentHashMap<>();
    private final AtomicInteger size = new AtomicInteger();
    private final AtomicLong epoch = new AtomicLong();
    private final AtomicBoolean sweeping = new AtomicBoolean();
    private volatile RateLimitSettings settings;
    private volatile long leaseNanos;
    private volatile double maxShare;
    private volatile boolean listening;
    private volatile boolean closed;

    /** Where the unused part of a slice goes, and what the guard learns of it. */
    interface Returns {
        /** Gives back {@code units} of {@code taken}'s multiple to the store. */
        void giveBack(RateLimitDecision taken, int units);
    }

    /**
     * @param store    the store, unguarded
     * @param settings which limits are sliced, the lease, the largest share; the most slices
     *                 ({@code ratelimit.max-tracked-partitions})
     * @param clock    the engine's clock, nanoseconds
     * @param metrics  where slices are counted
     * @param returns  how the unused part of a slice goes back
     */
    Slices(RateLimitStore store, RateLimitSettings settings, LongSupplier clock, RateLimitMetrics metrics, Returns returns) {
        this.store = store;
        this.clock = clock;
        this.metrics = metrics;
        this.capacity = settings.maxTrackedPartitions();
        this.returns = returns;
        apply(settings);
    }

    private void apply(RateLimitSettings next) {
        this.settings = next;
        this.leaseNanos = TimeUnit.MILLISECONDS.toNanos(next.sliceLeaseMillis());
        this.maxShare = next.sliceMaxShare();
    }

    // ------------------------------------------------------------------ the request path

    /**
     * The slice of {@code request} in {@code partition}, its demand counted ({@code count}); null when the request is not sliced (or no
     * room is left for a new slice, or the store's announcements are not heard yet): then it goes to the store as in
     * exact mode.
     */
    Slice slice(String partition, RateLimitRequest request, int multiple, boolean count, long now) {
        if (!listening || closed) {
            return null;
        }
        SliceSite site = sites.get(request);
        if (site == null) {
            site = sites.computeIfAbsent(request, r -> new SliceSite(r, eligible(r), metrics));
        }
        if (!site.sliced) {
            return null;
        }
        String key = site.perApplication ? CountKey.APPLICATION : partition;
        Slice slice = site.byPartition.get(key);
        if (slice == null) {
            if (size.get() >= capacity && !sweep(now)) {
                return null;
            }
            Slice made = new Slice(site, key, now);
            slice = site.byPartition.putIfAbsent(key, made);
            if (slice == null) {
                if (size.incrementAndGet() > capacity) {
                    size.decrementAndGet();
                    site.byPartition.remove(key, made);
                    return null;
                }
                slice = made;
                scheduleSweep();
            }
        }
        if (count) {
            slice.seen(now, leaseNanos);
        }
        return slice;
    }

    /** True when every limit of {@code request} may be sliced: acquires that never wait, not failures-only, sliced. */
    private boolean eligible(RateLimitRequest request) {
        if (request.waits()) {
            return false;
        }
        for (int i = 0; i < request.size(); i++) {
            CountKey key = request.key(i);
            if (request.kind(i) != Kind.ACQUIRE || key.failuresOnly() || !settings.slices(key.name())) {
                return false;
            }
        }
        return true;
    }

    /**
     * The request decided at home from the slice's lease: {@code multiple} units taken from it; null when the lease has
     * not enough left, or ended (then the store is asked).
     */
    RateLimitDecision atHome(Slice slice, String partition, RateLimitRequest request, int multiple, long now) {
        SliceLease lease = slice.lease;
        if (lease == null) {
            return null;
        }
        if (now - lease.endsAt >= 0) {
            return null;
        }
        int left = lease.take(multiple);
        if (left < 0) {
            return null;
        }
        slice.site.home();
        return lease.decision(partition, request, multiple, left, now);
    }

    /**
     * How many times the request's cost the next store call takes for {@code slice}: more than {@code multiple} takes
     * a slice (then the slice is marked as taking, until {@link #taken} or {@link #untaken}); {@code multiple} asks
     * exactly. A lease that ended, or has too little left, is closed first (its unused part goes back).
     */
    int size(Slice slice, RateLimitRequest request, int multiple) {
        long now = clock.getAsLong();
        SliceLease lease = slice.lease;
        if (lease != null && lease.units != CLOSED) {
            close(lease, true);
        }
        RateLimitDecision known = slice.answer;
        if (known == null || now - slice.answeredAt >= leaseNanos) {
            return multiple; // the first request of a lease learns the rate and what remains
        }
        long lease0 = Math.min(leaseNanos, slice.site.shortestStep);
        long k = (long) slice.demand() * lease0 / leaseNanos;
        double share = maxShare;
        for (int i = 0; i < request.size(); i++) {
            RateLimitPolicy policy = request.policy(i);
            int cost = request.cost(i);
            long byShare = (long) (share * policy.permitLimit()) / cost;
            long byRemaining = known.outcome(i).remaining() / (2L * cost);
            k = Math.min(k, Math.min(byShare, byRemaining));
        }
        if (k <= Math.max(1, multiple) || !slice.startTaking()) {
            return multiple;
        }
        return (int) Math.min(k, Integer.MAX_VALUE);
    }

    /** What a call that went with {@code ticket} must find unchanged to install the slice it took. */
    long ticket(Slice slice) {
        return epoch.get() << 32 ^ slice.drops;
    }

    /**
     * The store answered a call of the slice (exact or slice): what it says remains is kept for sizing, from
     * {@code sentAt}.
     */
    void answered(Slice slice, RateLimitDecision decision, long sentAt) {
        if (decision.allowed() || slice.answer == null) {
            slice.answer = decision;
            slice.answeredAt = sentAt;
        }
    }

    /**
     * The store allowed a slice call of {@code k} ({@code decision.multiple()}): the request's {@code multiple} units
     * are used now, the rest installed as the slice's lease, ending with the step its permits were spent in (or the
     * lease) from {@code sentAt}, unless the count was announced meanwhile (then the rest is dropped: the permits may
     * have been forgotten with it). The slice is no longer taking.
     *
     * @return the request's decision
     */
    RateLimitDecision taken(Slice slice, String partition, RateLimitRequest request, int multiple,
                            RateLimitDecision decision, long sentAt, long ticket) {
        slice.site.taken();
        int rest = decision.multiple() - multiple;
        long ends = sentAt + leaseFor(decision);
        SliceLease lease = new SliceLease(slice.site, decision, rest, sentAt, ends);
        boolean kept = !closed && ticket == ticket(slice) && ends - clock.getAsLong() > 0;
        if (kept) {
            SliceLease before = Slice.LEASE.getAndSet(slice, lease);
            if (before != null) {
                close(before, true); // installed by another call since this one went: its unused part goes back
            }
            if (ticket != ticket(slice)) { // an announcement came in while installing
                close(lease, true);
            }
        } else {
            close(lease, true); // ended already, or its count announced meanwhile: back at once
        }
        slice.taking = 0;
        return lease.decision(partition, request, multiple, rest, sentAt);
    }

    /** The slice call ended without a slice (refused, failed, timed out): the slice may be taken again. */
    void untaken(Slice slice) {
        slice.taking = 0;
    }

    /**
     * How long a slice spent with {@code decision} may be used, from when its call went: the lease, and for a window no
     * longer than the time left in the step the store spent it in.
     */
    long leaseFor(RateLimitDecision decision) {
        long lease = leaseNanos;
        for (int i = 0; i < decision.size(); i++) {
            Outcome o = decision.outcome(i);
            RateLimitPolicy policy = o.policy();
            if (policy.algorithm() == RateLimitAlgorithm.TOKEN_BUCKET) {
                continue;
            }
            lease = Math.min(lease, leftInStep(o.resetNanos(), step(policy)));
        }
        return lease;
    }

    /**
     * The time left in the step a window's permits were just spent in, from its spent outcome's reset: a permit spent
     * in step {@code j} returns at the end of step {@code j + 7} (sliding) or {@code j + 8} (strict), the oldest at a
     * whole number of steps before or at the newest's, so the reset is, modulo the step, the time left in step
     * {@code j}. 0 when the reset is unknown.
     */
    static long leftInStep(long resetNanos, long stepNanos) {
        if (resetNanos <= 0) {
            return 0;
        }
        long left = (resetNanos - 1) % stepNanos + 1 - STEP_MARGIN_NANOS;
        return Math.max(0, left);
    }

    /** A window's step: an eighth of it, nanoseconds. */
    static long step(RateLimitPolicy policy) {
        return policy.windowSeconds() * NANOS_PER_SECOND / 8;
    }

    // ------------------------------------------------------------------ give-back, announcements

    /**
     * Closes {@code lease}: its unused part goes back when {@code giveBack}, else it is dropped. Once: a lease closed
     * already is left alone.
     */
    void close(SliceLease lease, boolean giveBack) {
        int unused = SliceLease.UNITS.getAndSet(lease, CLOSED);
        if (unused > 0 && giveBack) {
            lease.site.returned(lease.taken, unused);
            returns.giveBack(lease.taken, unused);
        }
    }

    /**
     * Gives back the unused part of every lease that ended, and forgets slices idle for two leases: the sweep. Runs on
     * the JDK's shared delay scheduler every lease while slices exist; tests call it with their clock moved.
     *
     * @return true when there is room for a new slice
     */
    boolean sweep(long now) {
        long idle = 2 * leaseNanos;
        for (SliceSite site : sites.values()) {
            for (Slice slice : site.byPartition.values()) {
                SliceLease lease = slice.lease;
                if (lease != null && lease.units != CLOSED && now - lease.endsAt >= 0) {
                    close(lease, true);
                }
                if (now - slice.lastSeen >= idle && slice.taking == 0
                        && (slice.lease == null || slice.lease.units == CLOSED)
                        && site.byPartition.remove(slice.key, slice)) {
                    size.decrementAndGet();
                }
            }
        }
        return size.get() < capacity;
    }

    private void scheduleSweep() {
        if (!sweeping.get() && sweeping.compareAndSet(false, true)) {
            CompletableFuture.delayedExecutor(leaseNanos, TimeUnit.NANOSECONDS, Runnable::run).execute(this::sweepTask);
        }
    }

    private void sweepTask() {
        try {
            sweep(clock.getAsLong());
        } finally {
            sweeping.set(false);
            if (size.get() > 0 && !closed) {
                scheduleSweep();
            }
        }
    }

    /** The count of (name, plan) in {@code partition} was announced: this instance's slices of it end. */
    @Override
    public void gained(String name, String plan, String partition) {
        for (SliceSite site : sites.values()) {
            int i = site.indexOf(name, plan);
            if (i < 0) {
                continue;
            }
            if (site.request.key(i).perApplication()) {
                for (Slice slice : site.byPartition.values()) {
                    drop(slice); // the application's count is part of every slice of the site
                }
            } else {
                Slice slice = site.byPartition.get(partition);
                if (slice != null) {
                    drop(slice);
                }
            }
        }
    }

    /**
     * Ends the slice's lease (its unused part goes back) and makes a slice call that is out end what it takes as soon as
     * it arrives. Giving back after a restart is harmless: the store ignores a receipt of a count that was started
     * afresh since (its permits have returned).
     */
    private void drop(Slice slice) {
        slice.drops++;
        SliceLease lease = slice.lease;
        if (lease != null) {
            close(lease, true);
        }
    }

    /** Announcements may have been lost (and from now on arrive): every slice ends. */
    @Override
    public void anyMayHaveGained() {
        epoch.incrementAndGet();
        for (SliceSite site : sites.values()) {
            for (Slice slice : site.byPartition.values()) {
                drop(slice);
            }
        }
        listening = true;
    }

    /**
     * New values (live values): every slice gives back its unused part and is forgotten; which limits are sliced, the
     * lease and the share are read from {@code next}.
     */
    void valuesChanged(RateLimitSettings next) {
        apply(next);
        epoch.incrementAndGet();
        forgetAll(true);
    }

    /** The engine shuts down: every slice gives back its unused part; none is taken again. */
    void close() {
        closed = true;
        epoch.incrementAndGet();
        forgetAll(true);
    }

    private void forgetAll(boolean giveBack) {
        for (RateLimitRequest request : sites.keySet()) {
            SliceSite site = sites.remove(request);
            if (site == null) {
                continue;
            }
            for (Slice slice : site.byPartition.values()) {
                slice.drops++;
                SliceLease lease = slice.lease;
                if (lease != null) {
                    close(lease, giveBack);
                }
                if (site.byPartition.remove(slice.key, slice)) {
                    size.decrementAndGet();
                }
            }
        }
    }

    /** How many slices are held now (tests, the start-up line): at most {@code ratelimit.max-tracked-partitions}. */
    int size() {
        return size.get();
    }

    /** True once the store's announcements are heard: only then are slices taken. */
    boolean listening() {
        return listening;
    }
}
