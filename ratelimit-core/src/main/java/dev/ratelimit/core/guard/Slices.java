package dev.ratelimit.core.guard;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitPolicy;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.RateLimitStore;
import dev.ratelimit.core.config.RateLimitSettings;
import dev.ratelimit.core.metrics.RateLimitMetrics;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
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
    private final ConcurrentHashMap<RateLimitRequest, Site> sites = new ConcurrentHashMap<>();
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
        Site site = sites.get(request);
        if (site == null) {
            site = sites.computeIfAbsent(request, r -> new Site(r, eligible(r), metrics));
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
        Lease lease = slice.lease;
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
        Lease lease = slice.lease;
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
        Lease lease = new Lease(slice.site, decision, rest, sentAt, ends);
        boolean kept = !closed && ticket == ticket(slice) && ends - clock.getAsLong() > 0;
        if (kept) {
            Lease before = Slice.LEASE.getAndSet(slice, lease);
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
    void close(Lease lease, boolean giveBack) {
        int unused = Lease.UNITS.getAndSet(lease, CLOSED);
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
        for (Site site : sites.values()) {
            for (Slice slice : site.byPartition.values()) {
                Lease lease = slice.lease;
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
        for (Site site : sites.values()) {
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
        Lease lease = slice.lease;
        if (lease != null) {
            close(lease, true);
        }
    }

    /** Announcements may have been lost (and from now on arrive): every slice ends. */
    @Override
    public void anyMayHaveGained() {
        epoch.incrementAndGet();
        for (Site site : sites.values()) {
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
            Site site = sites.remove(request);
            if (site == null) {
                continue;
            }
            for (Slice slice : site.byPartition.values()) {
                slice.drops++;
                Lease lease = slice.lease;
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

    // ------------------------------------------------------------------ what is held

    /** One call site's request: whether it is sliced, its slices by partition, its counters. */
    static final class Site {
        final boolean sliced;
        final boolean perApplication;
        final long shortestStep;
        final RateLimitRequest request;
        final ConcurrentHashMap<String, Slice> byPartition = new ConcurrentHashMap<>();
        private final RateLimitMetrics.Counter[] home;
        private final RateLimitMetrics.Counter[] atStore;
        private final RateLimitMetrics.Counter[] taken;
        private final RateLimitMetrics.Tally[] returned;

        Site(RateLimitRequest request, boolean sliced, RateLimitMetrics metrics) {
            this.request = request;
            this.sliced = sliced;
            boolean perApplication = true;
            long shortest = Long.MAX_VALUE;
            int n = request.size();
            home = new RateLimitMetrics.Counter[n];
            atStore = new RateLimitMetrics.Counter[n];
            taken = new RateLimitMetrics.Counter[n];
            returned = new RateLimitMetrics.Tally[n];
            for (int i = 0; i < n; i++) {
                perApplication &= request.key(i).perApplication();
                RateLimitPolicy policy = request.policy(i);
                if (policy.algorithm() != RateLimitAlgorithm.TOKEN_BUCKET) {
                    shortest = Math.min(shortest, step(policy));
                }
                String name = policy.name();
                home[i] = metrics.sliceRequests(name, true);
                atStore[i] = metrics.sliceRequests(name, false);
                taken[i] = metrics.slicesTaken(name);
                returned[i] = metrics.slicePermitsReturned(name);
            }
            this.perApplication = perApplication;
            this.shortestStep = shortest;
        }

        /** The limit of the request that spends from the counts of (name, plan), or -1. */
        int indexOf(String name, String plan) {
            for (int i = 0; i < request.size(); i++) {
                CountKey key = request.key(i);
                if (key.name().equals(name) && Objects.equals(key.plan(), plan)) {
                    return i;
                }
            }
            return -1;
        }

        void home() {
            for (RateLimitMetrics.Counter c : home) {
                c.increment();
            }
        }

        void atStore() {
            for (RateLimitMetrics.Counter c : atStore) {
                c.increment();
            }
        }

        void taken() {
            for (RateLimitMetrics.Counter c : taken) {
                c.increment();
            }
        }

        void returned(RateLimitDecision decision, int units) {
            for (int i = 0; i < returned.length; i++) {
                returned[i].add((long) decision.request().cost(i) * units);
            }
        }
    }

    /** The slice of one site in one partition: its lease, its demand, the store's last answer. */
    static final class Slice {
        private static final AtomicIntegerFieldUpdater<Slice> TAKING =
                AtomicIntegerFieldUpdater.newUpdater(Slice.class, "taking");
        static final AtomicReferenceFieldUpdater<Slice, Lease> LEASE =
                AtomicReferenceFieldUpdater.newUpdater(Slice.class, Lease.class, "lease");

        final Site site;
        final String key;
        volatile Lease lease;
        /** Announcements of its counts so far: a slice call that saw another number drops what it took. */
        volatile long drops;
        /** 1 while a slice call is out. */
        volatile int taking;
        /** The store's last answer of an allowed call (or any, before the first), and when its call went. */
        volatile RateLimitDecision answer;
        volatile long answeredAt;
        /**
         * Requests seen in the current period of one lease, and in the one before; when the last was seen. Plain fields,
         * racy on purpose: a write lost or seen late only makes a slice smaller or larger by a few permits, within its
         * bounds, and the request path pays no fence for them.
         */
        private long periodStart;
        private int seen;
        private int seenBefore;
        long lastSeen;

        Slice(Site site, String key, long now) {
            this.site = site;
            this.key = key;
            this.periodStart = now;
            this.lastSeen = now;
        }

        /** One more request at {@code now} (racy: a lost increment makes a slice smaller). */
        void seen(long now, long leaseNanos) {
            long start = periodStart;
            long elapsed = now - start;
            if (elapsed >= leaseNanos) {
                seenBefore = elapsed >= 2 * leaseNanos ? 0 : seen;
                seen = 0;
                periodStart = now;
            }
            seen++;
            lastSeen = now;
        }

        /** The requests seen over the last lease. */
        int demand() {
            return Math.max(seen, seenBefore);
        }

        boolean startTaking() {
            return taking == 0 && TAKING.compareAndSet(this, 0, 1);
        }
    }

    /** Permits of one slice call: what the store decided, the units not used yet, until when they may be. */
    static final class Lease {
        static final AtomicIntegerFieldUpdater<Lease> UNITS = AtomicIntegerFieldUpdater.newUpdater(Lease.class, "units");

        final Site site;
        final RateLimitDecision taken;
        final long sentAt;
        final long endsAt;
        /** Units (times the request's cost) left to use; {@link #CLOSED} once closed. */
        volatile int units;

        Lease(Site site, RateLimitDecision taken, int units, long sentAt, long endsAt) {
            this.site = site;
            this.taken = taken;
            this.units = units;
            this.sentAt = sentAt;
            this.endsAt = endsAt;
        }

        /** Takes {@code multiple} units: what is left then, or -1 when there were not enough (or it is closed). */
        int take(int multiple) {
            int u;
            do {
                u = units;
                if (u < multiple) {
                    return -1;
                }
            } while (!UNITS.compareAndSet(this, u, u - multiple));
            return u - multiple;
        }

        /**
         * The request's decision from this lease: each limit spent {@code multiple} of its cost, with the store's
         * remaining at the slice call plus what the slice still holds ({@code left} units; never more than the limit),
         * the reset counting down from when the call went; the receipts of the slice, so that a give-back of the
         * request returns its permits to the step they were spent in.
         */
        RateLimitDecision decision(String partition, RateLimitRequest request, int multiple, int left, long now) {
            long elapsed = now - sentAt;
            if (taken.size() == 1) {
                return RateLimitDecision.of(partition, request, multiple, outcome(0, request, left, elapsed));
            }
            Outcome[] outcomes = new Outcome[taken.size()];
            for (int i = 0; i < outcomes.length; i++) {
                outcomes[i] = outcome(i, request, left, elapsed);
            }
            return RateLimitDecision.ofArray(partition, request, multiple, outcomes);
        }

        private Outcome outcome(int i, RateLimitRequest request, int left, long elapsed) {
            Outcome o = taken.outcome(i);
            long remaining = Math.min(o.policy().permitLimit(), o.remaining() + (long) left * request.cost(i));
            long reset = o.resetNanos() < 0 ? -1 : Math.max(1, o.resetNanos() - elapsed);
            return new Outcome(o.policy(), State.SPENT, (int) remaining, reset, 0, o.receipt());
        }
    }
}
