package dev.ratelimit.core.guard;

import dev.ratelimit.core.CountKey;
import dev.ratelimit.core.RateLimitAlgorithm;
import dev.ratelimit.core.RateLimitDecision;
import dev.ratelimit.core.RateLimitDecision.Outcome;
import dev.ratelimit.core.RateLimitDecision.State;
import dev.ratelimit.core.RateLimitRequest;
import dev.ratelimit.core.RateLimitRequest.Kind;
import dev.ratelimit.core.RateLimitStore;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * Refusals answered at home, for a store that several instances share and that announces what they do to its
 * counts ({@link RateLimitStore#announceTo}). When the store refuses a request until an instant (the retry-after of
 * its refusing limits), this instance answers the same request (the same call site and plan, partition and number
 * of permits) itself until then, never longer than {@code ratelimit.store.refusal-memory-millis}: the same decision,
 * its retry-after and resets counting down, so the same 429, headers and metrics. A flood from one caller then costs
 * the store about one call per instance and refusal instead of one per request.
 *
 * <p>Why that stays exact: a count that refused a number of permits keeps refusing at least as many until its
 * retry-after, unless it gains permits, which only a give-back, a restart (the admin API) or new values (live
 * values) do; the store announces the first two to every instance ({@link #gained}), the engine the third
 * ({@link #forgetAll}). Only requests the store refused are remembered, never a decision of the failure policy;
 * requests with a limit that may wait are never answered here, nor are charges and shadow limits ever remembered
 * (they never refuse); allowed requests always go to the store. A remembered answer is given only while the other
 * limits' part of it would read the same (until the first of them changes with time: an oldest permit returning, a
 * bucket's next permit); then the store is asked again.
 *
 * <p>Concurrency: {@code byPartition} maps the partition a count is kept under ({@link CountKey#partition}) to an
 * immutable array of the refusals remembered for its counts, replaced whole inside {@code compute}, which also keeps
 * {@code size} (the number of refusals held, at most {@code capacity}). {@code epoch} moves on with every
 * announcement, before it removes anything: a refusal is kept only if the epoch did not move between the moment its
 * call went to the store ({@link #ticket}) and the moment after it was stored (else it is taken back), so an
 * announcement that overtook the refusal's answer is never lost. {@code listening} turns true at the store's first
 * {@link #anyMayHaveGained()}, once it announces; before that nothing is remembered. {@code nextSweep} is a hint.
 */
final class RefusalMemory implements RateLimitStore.CountListener {

    /** How often, at most, a full memory looks for refusals that ran out. */
    private static final long SWEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long NANOS_PER_MICRO = 1_000L;
    private static final long MICROS_PER_SECOND = 1_000_000L;
    private static final Refusal[] NONE = new Refusal[0];

    private final long longestNanos;
    private final int capacity;
    private final LongSupplier clock;
    private final ConcurrentHashMap<String, Refusal[]> byPartition = new ConcurrentHashMap<>();
    private final AtomicInteger size = new AtomicInteger();
    private final AtomicLong epoch = new AtomicLong();
    private volatile boolean listening;
    private volatile long nextSweep;

    /**
     * @param longestMillis {@code ratelimit.store.refusal-memory-millis}, {@code > 0}
     * @param capacity      the most refusals held ({@code ratelimit.max-tracked-partitions})
     * @param clock         the engine's clock, in nanoseconds
     */
    RefusalMemory(long longestMillis, int capacity, LongSupplier clock) {
        this.longestNanos = TimeUnit.MILLISECONDS.toNanos(longestMillis);
        this.capacity = capacity;
        this.clock = clock;
        this.nextSweep = clock.getAsLong();
    }

    /** What a call takes along to the store, for {@link #remember}: -1 while nothing may be remembered. */
    long ticket() {
        return listening ? epoch.get() : -1;
    }

    /**
     * The store's answer to this request as it stands now, when a refusal of it is remembered and still holds;
     * null: ask the store.
     */
    RateLimitDecision answer(String partition, RateLimitRequest request, int multiple) {
        if (size.get() == 0 || request.waits()) {
            return null;
        }
        long now = clock.getAsLong();
        Refusal[] callers = null;
        Refusal[] application = null;
        for (int i = 0; i < request.size(); i++) {
            if (request.kind(i) != Kind.ACQUIRE) {
                continue;
            }
            CountKey key = request.key(i);
            Refusal[] held;
            if (key.perApplication()) {
                held = application != null ? application : (application = held(CountKey.APPLICATION));
            } else {
                held = callers != null ? callers : (callers = held(partition));
            }
            Refusal refusal = find(held, key);
            if (refusal == null) {
                continue;
            }
            if (now - refusal.until >= 0) {
                drop(key.partition(partition), refusal);
                continue;
            }
            Snapshot s = refusal.snapshot;
            if (s.request == request && s.multiple == multiple && s.partition.equals(partition)
                    && now - s.stableUntil < 0 && wholly(s, partition)) {
                return s.at(now);
            }
        }
        return null;
    }

    /**
     * Remembers what the store answered a call that went with {@code ticket} at {@code sentAt}, if it refused: each
     * refusing limit until its retry-after (counted from {@code sentAt}, before the store decided: never later than
     * the store would say), at most {@code ratelimit.store.refusal-memory-millis}.
     */
    void remember(String partition, RateLimitRequest request, int multiple, RateLimitDecision decision, long sentAt,
                  long ticket) {
        if (ticket < 0 || decision.allowed() || decision.request() != request || request.waits()) {
            return;
        }
        Snapshot snapshot = new Snapshot(partition, decision, sentAt);
        boolean kept = false;
        for (int i = 0; i < decision.size(); i++) {
            long retry = decision.outcome(i).retryAfterNanos();
            if (decision.refuses(i) && retry > 0) {
                CountKey key = request.key(i);
                kept |= put(key.partition(partition), new Refusal(key, sentAt + Math.min(retry, longestNanos), snapshot));
            }
        }
        if (kept && epoch.get() != ticket) {
            takeBack(snapshot, partition); // an announcement came while the call was out: it may be older than this
        }
    }

    /** The count of (name, plan) in {@code partition} gained permits: its refusals are forgotten. */
    @Override
    public void gained(String name, String plan, String partition) {
        epoch.incrementAndGet();
        if (size.get() == 0) {
            return;
        }
        byPartition.computeIfPresent(partition, (p, held) -> without(held, r -> r.key.name().equals(name)
                && Objects.equals(r.key.plan(), plan)));
    }

    /** Announcements may have been lost (and from now on arrive): everything is forgotten. */
    @Override
    public void anyMayHaveGained() {
        forgetAll();
        listening = true;
    }

    /** Forgets every refusal: the store's announcements may have been lost, or the limits' values changed. */
    void forgetAll() {
        epoch.incrementAndGet();
        for (String partition : byPartition.keySet()) {
            byPartition.computeIfPresent(partition, (p, held) -> {
                size.addAndGet(-held.length);
                return null;
            });
        }
    }

    /** {@code ratelimit.store.refusal-memory-millis}. */
    long longestMillis() {
        return TimeUnit.NANOSECONDS.toMillis(longestNanos);
    }

    /** How many refusals are held (tests). */
    int size() {
        return size.get();
    }

    // ------------------------------------------------------------------ the table

    private Refusal[] held(String partition) {
        Refusal[] held = byPartition.get(partition);
        return held == null ? NONE : held;
    }

    private static Refusal find(Refusal[] held, CountKey key) {
        for (Refusal r : held) {
            if (r.key == key) {
                return r;
            }
        }
        return null;
    }

    /** True while every refusing limit of {@code s} is still remembered with it (none was announced since). */
    private boolean wholly(Snapshot s, String partition) {
        RateLimitDecision d = s.decision;
        if (d.size() == 1) {
            return true; // the refusal that led here
        }
        for (int i = 0; i < d.size(); i++) {
            if (d.refuses(i) && d.outcome(i).retryAfterNanos() > 0) {
                CountKey key = s.request.key(i);
                Refusal r = find(held(key.partition(partition)), key);
                if (r == null || r.snapshot != s) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Stores {@code refusal} in place of the count's earlier one; false when full. */
    private boolean put(String partition, Refusal refusal) {
        if (size.get() >= capacity && !sweep()) {
            return false;
        }
        boolean[] stored = new boolean[1];
        byPartition.compute(partition, (p, held) -> {
            if (held == null) {
                if (size.get() >= capacity) {
                    return null;
                }
                size.incrementAndGet();
                stored[0] = true;
                return new Refusal[] {refusal};
            }
            for (int i = 0; i < held.length; i++) {
                if (held[i].key == refusal.key) {
                    Refusal[] copy = held.clone();
                    copy[i] = refusal;
                    stored[0] = true;
                    return copy;
                }
            }
            if (size.get() >= capacity) {
                return held;
            }
            size.incrementAndGet();
            stored[0] = true;
            Refusal[] more = Arrays.copyOf(held, held.length + 1);
            more[held.length] = refusal;
            return more;
        });
        return stored[0];
    }

    private void drop(String partition, Refusal refusal) {
        byPartition.computeIfPresent(partition, (p, held) -> without(held, r -> r == refusal));
    }

    private void takeBack(Snapshot snapshot, String partition) {
        for (int i = 0; i < snapshot.decision.size(); i++) {
            String p = snapshot.request.key(i).partition(partition);
            byPartition.computeIfPresent(p, (k, held) -> without(held, r -> r.snapshot == snapshot));
        }
    }

    /** {@code held} without the refusals {@code gone} matches, or null for none left; keeps {@code size}. */
    private Refusal[] without(Refusal[] held, Predicate<Refusal> gone) {
        int kept = 0;
        Refusal[] left = new Refusal[held.length];
        for (Refusal r : held) {
            if (!gone.test(r)) {
                left[kept++] = r;
            }
        }
        if (kept == held.length) {
            return held;
        }
        size.addAndGet(kept - held.length);
        return kept == 0 ? null : Arrays.copyOf(left, kept);
    }

    /** Drops the refusals that ran out, at most once per {@link #SWEEP_NANOS}; true when there is room now. */
    private boolean sweep() {
        long now = clock.getAsLong();
        long due = nextSweep;
        if (now - due >= 0) {
            nextSweep = now + SWEEP_NANOS;
            for (String partition : byPartition.keySet()) {
                byPartition.computeIfPresent(partition, (p, held) -> without(held, r -> now - r.until >= 0));
            }
        }
        return size.get() < capacity;
    }

    // ------------------------------------------------------------------ what is remembered

    /** One count's refusal: until when it holds, and the decision it belongs to. Immutable. */
    private record Refusal(CountKey key, long until, Snapshot snapshot) {
    }

    /**
     * One refusing decision of the store, as it was answered at {@code decidedAt} (when its call went: never later
     * than when the store decided), and until when every other part of it reads the same ({@code stableUntil}).
     * Immutable.
     */
    private static final class Snapshot {
        final String partition;
        final RateLimitDecision decision;
        final RateLimitRequest request;
        final int multiple;
        final long decidedAt;
        final long stableUntil;

        Snapshot(String partition, RateLimitDecision decision, long decidedAt) {
            this.partition = partition;
            this.decision = decision;
            this.request = decision.request();
            this.multiple = decision.multiple();
            this.decidedAt = decidedAt;
            long stable = Long.MAX_VALUE;
            for (int i = 0; i < decision.size(); i++) {
                stable = Math.min(stable, unchangedFor(decision, i));
            }
            this.stableUntil = stable == Long.MAX_VALUE ? decidedAt + Long.MAX_VALUE / 2 : decidedAt + stable;
        }

        /**
         * How long limit {@code i}'s part of the answer reads the same as time passes, its reset counting down: a
         * window's until its oldest permit returns (then it holds more, or its reset jumps to the next one); a
         * bucket's, unless it refused (it then reads zero left), until its next permit; a limit in shadow mode is
         * never shown.
         */
        private static long unchangedFor(RateLimitDecision decision, int i) {
            Outcome o = decision.outcome(i);
            if (decision.request().kind(i) == Kind.SHADOW || o.resetNanos() < 0) {
                return Long.MAX_VALUE;
            }
            if (o.policy().algorithm() != RateLimitAlgorithm.TOKEN_BUCKET) {
                return o.resetNanos();
            }
            if (decision.refuses(i)) {
                return Long.MAX_VALUE;
            }
            long interval = NANOS_PER_MICRO * ((o.policy().windowSeconds() * MICROS_PER_SECOND
                    + o.policy().permitLimit() - 1) / o.policy().permitLimit());
            return (o.resetNanos() - 1) % interval + 1;
        }

        /** The decision as the store would answer it at {@code now}: retry-after and resets counted down. */
        RateLimitDecision at(long now) {
            long elapsed = now - decidedAt;
            Outcome[] outcomes = new Outcome[decision.size()];
            for (int i = 0; i < outcomes.length; i++) {
                Outcome o = decision.outcome(i);
                long reset = o.resetNanos() < 0 || o.resetNanos() <= elapsed ? -1 : o.resetNanos() - elapsed;
                long retry = o.state() == State.REFUSED ? Math.max(1, o.retryAfterNanos() - elapsed) : 0;
                outcomes[i] = new Outcome(o.policy(), o.state(), o.remaining(), reset, retry, RateLimitDecision.NO_RECEIPT);
            }
            return RateLimitDecision.ofArray(partition, request, multiple, outcomes);
        }
    }
}
